/**
 * How long the service waits on its database before it answers `service_unavailable` instead of
 * hanging with it (docs/operating.md, "Database timeouts"). Every bound is in milliseconds; 0
 * switches that one off.
 */
export interface DatabaseTimeouts {
  /** Opening a connection: TCP, TLS, authentication (pg `connectionTimeoutMillis`). Also bounds start-up. */
  connectMs: number;
  /** Waiting for a connection of the pool, opening one included. Bounds the queue of waiting requests. */
  acquireMs: number;
  /**
   * One statement. PostgreSQL cancels it (`statement_timeout`); a server that does not answer at
   * all is given up on by this process {@link CLIENT_MARGIN_MS} later and its connection closed.
   */
  statementMs: number;
  /** Waiting for a lock held by someone else: PostgreSQL `lock_timeout`, SQLite `busy_timeout`. */
  lockMs: number;
  /** TCP keepalive: the first probe after this much silence on a connection (so a dead peer is noticed); 0 = off. */
  keepAliveMs: number;
  /**
   * How long a pooled connection stays open unused (pg `idleTimeoutMillis`); 0 = until the pool
   * closes. pg's own 10 s closed every connection of a quiet instance, so the first requests after
   * each quiet spell opened new ones (a PostgreSQL process each, its catalog caches cold, the
   * prepared statements prepared again): a refresh after 12 s of quiet answered in 1.5x the time
   * (docs/operating.md, "Database timeouts and outages").
   */
  idleMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: Readonly<DatabaseTimeouts> = {
  connectMs: 5000,
  acquireMs: 3000,
  statementMs: 5000,
  lockMs: 3000,
  keepAliveMs: 10_000,
  idleMs: 300_000,
};

/**
 * For migrations: a schema change may rightly take minutes and wait for locks, so statements and
 * locks are not bounded; connecting still is.
 */
export const MIGRATION_TIMEOUTS: Readonly<Partial<DatabaseTimeouts>> = { statementMs: 0, lockMs: 0 };

/** The server's own timeout comes first; this much later the client stops waiting for it. */
const CLIENT_MARGIN_MS = 500;

/** How long this process waits for a statement's answer (0 = as long as it takes). */
export function answerMsOf(timeouts: DatabaseTimeouts): number {
  return timeouts.statementMs > 0 ? timeouts.statementMs + CLIENT_MARGIN_MS : 0;
}
