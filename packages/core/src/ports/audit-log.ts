import type { TenantScope } from '../domain/environment';
import type { AuditEntry, SecurityEventType } from '../domain/security-event';

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

/**
 * The append-only audit log of one project environment. Nothing updates an entry; only the
 * janitor deletes, and only entries past their `expiresAt`.
 */
export interface AuditLog {
  /** Stores the entry in its scope. An id already stored rejects. */
  append(scope: TenantScope, entry: AuditEntry): Promise<void>;
  /** Up to `limit` entries of the scope that match every filter, newest first (`at`, then `id`, descending). */
  list(scope: TenantScope, query: AuditLogQuery): Promise<AuditEntry[]>;
  /** Housekeeping over every tenant: deletes up to `limit` entries with `expiresAt <= now`; answers how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
