import { AuthError } from '@svc/core';
import { pgDriver } from './connection-options';

/**
 * Why the database cannot do a piece of work now. Published in the error's `details.reason`
 * (readiness names it); the answer to a client is the catalogue's generic message.
 */
export type UnavailableReason = 'timeout' | 'lock_timeout' | 'read_only' | 'disk_full' | 'overloaded' | 'unreachable' | 'schema_changed';

/** The one error a database that cannot answer in time surfaces as: `service_unavailable`. */
export function unavailable(reason: UnavailableReason, cause?: unknown): AuthError {
  return new AuthError('service_unavailable', undefined, { cause, details: { dependency: 'database', reason } });
}

/** The reason of an error made by {@link unavailable}, or null for any other error. */
export function unavailableReason(error: unknown): UnavailableReason | null {
  if (!(error instanceof AuthError) || error.code !== 'service_unavailable') return null;
  return (error.details?.reason as UnavailableReason | undefined) ?? null;
}

/**
 * Maps what the PostgreSQL driver threw to `service_unavailable`, or answers null when the error
 * is about the statement itself (a constraint, a syntax error: a bug, a 500). Server errors are
 * read by SQLSTATE; an error that is not a server error at all is the connection failing under
 * the statement (reset, closed, refused), since the SQL never got an answer.
 */
export function fromPostgresError(error: unknown): AuthError | null {
  if (error instanceof AuthError) return null;
  const driverError = (error as { driverError?: unknown })?.driverError ?? error; // TypeORM's QueryFailedError wraps it
  // Only PostgreSQL's statements come here, so the driver is loaded already.
  if (!(driverError instanceof pgDriver().DatabaseError)) return driverError instanceof TypeError ? null : unavailable('unreachable', error);
  const reason = isStalePlan(driverError) ? 'schema_changed' : postgresReason(driverError.code ?? '');
  return reason === null ? null : unavailable(reason, error);
}

/**
 * A prepared statement planned before a migration changed what it answers (prepared.ts): the
 * connection is closed (pg-statements.ts, brokenBy), and the same statement on the next one is
 * prepared anew, so a retry succeeds.
 */
function isStalePlan(error: { code?: string; message: string }): boolean {
  return error.code === '0A000' && error.message.includes('cached plan must not change result type');
}

/** SQLSTATE (PostgreSQL appendix A) -> reason; null for codes that describe the request. */
function postgresReason(code: string): UnavailableReason | null {
  if (code === '57014') return 'timeout'; // query_canceled: statement_timeout (or an operator's cancel)
  if (code === '55P03') return 'lock_timeout'; // lock_not_available: lock_timeout
  if (code === '25006') return 'read_only'; // read_only_sql_transaction: a standby, or default_transaction_read_only
  if (code === '53100') return 'disk_full';
  if (code.startsWith('53')) return 'overloaded'; // insufficient resources: out of memory, too many connections
  // connection exceptions; shutting down, crashed or starting up; the role may not sign in (any more)
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code.startsWith('28')) return 'unreachable';
  return null;
}

/** better-sqlite3's result codes that mean "not now", not "this statement is wrong". */
const SQLITE_REASONS: Array<[RegExp, UnavailableReason]> = [
  [/^SQLITE_(BUSY|LOCKED)/, 'lock_timeout'], // another connection's lock outlasted busy_timeout
  [/^SQLITE_READONLY/, 'read_only'],
  [/^SQLITE_FULL$/, 'disk_full'],
  [/^SQLITE_(IOERR|CANTOPEN)/, 'unreachable'],
];

/** Maps a better-sqlite3 error (its `code`, e.g. `SQLITE_BUSY`) to `service_unavailable`, or null. */
export function fromSqliteError(error: unknown): AuthError | null {
  if (error instanceof AuthError) return null;
  const driverError = (error as { driverError?: unknown })?.driverError ?? error;
  const code = (driverError as { code?: unknown })?.code;
  if (typeof code !== 'string') return null;
  const match = SQLITE_REASONS.find(([pattern]) => pattern.test(code));
  return match ? unavailable(match[1], error) : null;
}

/**
 * `work`, or `service_unavailable` (`reason`) once `ms` have passed without an answer. The work
 * goes on: `late` receives its value if it ever comes (e.g. to release a connection), and a late
 * failure is swallowed. `ms` <= 0 waits as long as the work takes.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, reason: UnavailableReason, late: (value: T) => void = () => undefined): Promise<T> {
  if (!(ms > 0)) return work;
  return new Promise<T>((resolve, reject) => {
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      reject(unavailable(reason, new Error(`no answer within ${ms} ms`)));
    }, ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (expired) late(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (!expired) reject(error);
      },
    );
  });
}
