import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { isUuid } from '../../domain/ids';
import type { AuditEntry, SecurityEventType } from '../../domain/security-event';
import type { AuditLog } from '../../ports/audit-log';

export const MAX_AUDIT_PAGE = 200;

export interface AuditLogPageQuery {
  type?: SecurityEventType;
  userId?: string;
  from?: Date;
  to?: Date;
  limit?: number;
  /** `nextCursor` of the page before. */
  cursor?: string;
}

export interface AuditLogPage {
  entries: AuditEntry[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** One page of a project environment's audit log, newest first. */
export async function readAuditLog(deps: { auditLog: AuditLog }, scope: TenantScope, query: AuditLogPageQuery): Promise<AuditLogPage> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), MAX_AUDIT_PAGE);
  const before = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  // One more than asked tells whether another page follows.
  const found = await deps.auditLog.list(scope, { type: query.type, userId: query.userId, from: query.from, to: query.to, before, limit: limit + 1 });
  const entries = found.slice(0, limit);
  const last = entries[entries.length - 1];
  return { entries, nextCursor: found.length > limit && last ? encodeCursor(last) : null };
}

/** The position after `entry`, opaque to callers: base64url of `<ISO time>|<id>`. */
function encodeCursor(entry: AuditEntry): string {
  return Buffer.from(`${entry.at.toISOString()}|${entry.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const at = new Date(iso ?? '');
  if (Number.isNaN(at.getTime()) || !isUuid(id)) throw new AuthError('validation_error', 'cursor is not valid.');
  return { at, id };
}
