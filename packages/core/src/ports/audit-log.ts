import type { TenantScope } from '../domain/environment';
import type { AuditEntry, SecurityEventType } from '../domain/security-event';
import type { WebhookMessage } from '../domain/webhook';

/** Filters of one page of the audit log; entries come newest first. */
export interface AuditLogQuery {
  type?: SecurityEventType;
  userId?: string;
  /** Entries at or after this time. */
  from?: Date;
  /** Entries before this time. */
  to?: Date;
  /** Entries strictly older than this one in the order (at descending, id descending). */
  before?: { at: Date; id: string };
  limit: number;
}

/** How many entries of one type one UTC day holds. */
export interface AuditDayCount {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  type: SecurityEventType;
  count: number;
}

/**
 * The append-only audit log of one project environment. Nothing updates an entry; only the
 * janitor deletes, and only entries past their `expiresAt`.
 */
export interface AuditLog {
  /**
   * Stores the entry in its scope. An id already stored rejects. With `deliveries`, those webhook
   * messages are queued (as `WebhookStore.enqueue` does) in the same transaction as the entry:
   * both or neither, so no recorded event misses its webhooks and no webhook goes out for an
   * event that was not recorded. A delivery naming an endpoint outside the scope rejects the call.
   */
  append(scope: TenantScope, entry: AuditEntry, options?: { deliveries?: WebhookMessage[] }): Promise<void>;
  /** Up to `limit` entries of the scope that match every filter, newest first (`at`, then `id`, descending). */
  list(scope: TenantScope, query: AuditLogQuery): Promise<AuditEntry[]>;
  /**
   * The scope's entries with a type in `types` and `from <= at < to`, counted per UTC day and
   * type; a day and type without entries is left out. Order unspecified.
   */
  countPerDay(scope: TenantScope, query: { types: readonly SecurityEventType[]; from: Date; to: Date }): Promise<AuditDayCount[]>;
  /** Housekeeping over every tenant: deletes up to `limit` entries with `expiresAt <= now`; answers how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
