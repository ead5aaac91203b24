import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsDateString, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateBy } from 'class-validator';
import { isUuid, MAX_AUDIT_PAGE, SECURITY_EVENT_TYPES, type AuditLogPageQuery, type SecurityEventType } from '@svc/core';

const LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_AUDIT_PAGE}.`;

/** Query of GET /admin/projects/{id}/environments/{env}/audit-log. */
export class AuditLogQuery {
  @IsOptional()
  @IsIn(SECURITY_EVENT_TYPES, { message: `type must be one of ${SECURITY_EVENT_TYPES.join(', ')}.` })
  type?: SecurityEventType;

  @IsOptional()
  @ValidateBy({ name: 'isUuid', validator: { validate: isUuid } }, { message: 'userId must be a user id.' })
  userId?: string;

  /** Entries at or after this instant (ISO 8601). */
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'from must be an ISO 8601 date-time.' })
  from?: string;

  /** Entries before this instant (ISO 8601). */
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'to must be an ISO 8601 date-time.' })
  to?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: LIMIT_MESSAGE })
  @Min(1, { message: LIMIT_MESSAGE })
  @Max(MAX_AUDIT_PAGE, { message: LIMIT_MESSAGE })
  limit?: number;

  /** The `nextCursor` of the previous page. */
  @IsOptional()
  @IsString({ message: 'cursor must be a nextCursor value from a previous page.' })
  @MaxLength(200, { message: 'cursor must be a nextCursor value from a previous page.' })
  cursor?: string;
}

/** The query as core's readAuditLog takes it. */
export function auditQueryOf(query: AuditLogQuery): AuditLogPageQuery {
  return {
    type: query.type,
    userId: query.userId,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
    limit: query.limit,
    cursor: query.cursor,
  };
}
