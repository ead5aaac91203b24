import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Allow, IsDateString, IsDefined, IsInt, IsOptional, Max, Min } from 'class-validator';

// The edge keeps these fields only; their rules (URL, event types, booleans) are core's
// (createWebhookEndpoint, updateWebhookEndpoint), applied for any host.

/** Body of POST .../webhooks. */
export class CreateWebhookDto {
  @Allow() url!: string;
  /** Event types to receive; empty or absent = every type. */
  @Allow() eventTypes?: string[];
  @Allow() enabled?: boolean;
}

/** Body of PATCH .../webhooks/{webhookId}: any subset. */
export class UpdateWebhookDto {
  @Allow() url?: string;
  @Allow() eventTypes?: string[];
  @Allow() enabled?: boolean;
}

/** Body of POST .../webhooks/{webhookId}/redeliver: the messages created in [from, to). */
export class RedeliverRangeDto {
  @IsDefined({ message: 'from is required.' })
  @IsDateString({ strict: true }, { message: 'from must be an ISO 8601 date-time.' })
  from!: string;

  @IsDefined({ message: 'to is required.' })
  @IsDateString({ strict: true }, { message: 'to must be an ISO 8601 date-time.' })
  to!: string;
}

/** Query of GET .../webhooks/{webhookId}/messages. */
export class WebhookMessagesQuery {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'limit must be an integer from 1 to 200.' })
  @Min(1, { message: 'limit must be an integer from 1 to 200.' })
  @Max(200, { message: 'limit must be an integer from 1 to 200.' })
  limit?: number;
}
