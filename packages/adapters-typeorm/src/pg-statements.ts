import type { Pool, PoolClient } from 'pg';
import { AuthError } from '@svc/core';
import { preparedName, replanIfDue } from './prepared';
import { LOCK_SECTION, type Row, type Sql } from './sql';
import { fromPostgresError, unavailable, unavailableReason, withDeadline } from './unavailable';

/** How this process sends statements to a pool: how long it waits on the pool and on each statement (0 = no bound), and whether it prepares. */
export interface PgLimits {
  /** For a connection of the pool, opening one included. */
  acquireMs: number;
  /** For a statement's answer. Set above the server's statement_timeout, so this catches a silent server. */
  answerMs: number;
  /**
   * Whether the statements marked `prepared` go out named, so that each connection parses and
   * plans them once (prepared.ts). Off for a pooler that hands one client's statements to several
   * server connections (PgBouncer's transaction mode before 1.21).
   */
  prepare: boolean;
}

/**
 * A pooled connection within `acquireMs`. Any failure to get one (refused, reset, the pool's own
 * connect timeout, a role that may not sign in) means the database is unavailable.
 */
async function acquire(pool: Pool, limits: PgLimits): Promise<PoolClient> {
  try {
    // A connection that arrives after the deadline goes straight back to the pool.
    return await withDeadline(pool.connect(), limits.acquireMs, 'timeout', (late) => late.release());
  } catch (error) {
    throw connectFailure(error);
  }
}

/** What a failure to get a pooled connection is reported as. */
function connectFailure(error: unknown): Error {
  return error instanceof AuthError ? error : (fromPostgresError(error) ?? unavailable('unreachable', error));
}

/**
 * TypeORM treats undefined as "no condition"; in raw SQL it would bind as NULL. Either way an
 * unchecked value slipped through (every value is validated before it reaches SQL), so it is
 * refused rather than guessed: the error to throw, or undefined.
 */
function undefinedParameter(sql: string, params: readonly unknown[]): TypeError | undefined {
  return params.some((p) => p === undefined) ? new TypeError(`undefined SQL parameter in: ${sql}`) : undefined;
}

/**
 * What the driver is asked: the text, named when it is marked `prepared` and the pool prepares
 * (the driver parses a name once per connection), unnamed otherwise.
 */
function queryOf(sql: string, params: readonly unknown[], limits: PgLimits): { text: string; values: unknown[]; name?: string } {
  const name = limits.prepare ? preparedName(sql) : undefined;
  return name === undefined ? { text: sql, values: [...params] } : { name, text: sql, values: [...params] };
}

/** One statement on `client`, bounded by `answerMs`; driver failures become `service_unavailable`. */
async function statement<T extends Row>(client: PoolClient, sql: string, params: readonly unknown[], limits: PgLimits): Promise<T[]> {
  const refused = undefinedParameter(sql, params);
  if (refused) throw refused;
  try {
    return (await withDeadline(client.query<T>(queryOf(sql, params, limits)), limits.answerMs, 'timeout')).rows;
  } catch (error) {
    throw fromPostgresError(error) ?? error;
  }
}

/**
 * The error to release a connection with, so that the pool closes it instead of reusing it: one
 * that did not answer in time may still be busy with the statement, and one whose socket failed
 * is gone, and one whose prepared statements no longer match the server's (a migration changed
 * what one answers, or a pooler moved the client: lostPrepared) would fail the same way again.
 * Other server errors (lock timeout, read-only) leave the connection as good as before.
 */
function brokenBy(error: unknown): Error | undefined {
  const reason = unavailableReason(error);
  return reason === 'timeout' || reason === 'unreachable' || reason === 'schema_changed' || lostPrepared(error) ? (error as Error) : undefined;
}

/**
 * The server connection does not hold the statements the driver prepared on it, or holds one it
 * did not (a pooler in front that moves a client between server connections: PgLimits.prepare).
 * Closed, so that the driver's record and the server agree again on a fresh connection.
 */
function lostPrepared(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '26000' || code === '42P05';
}

/**
 * One statement on a connection of its own: what `acquire` then `statement` do, bounded and mapped
 * the same way, written with the driver's callbacks and one promise. The busiest reads (the
 * session check of every `/me`) come here, and each promise of the awaited form (four async
 * functions, two deadlines, the driver's own two) runs the hooks of every AsyncLocalStorage in the
 * process on Node 20 (bench/README.md, round 7).
 */
export function pgQuery<T extends Row>(pool: Pool, limits: PgLimits, sql: string, params: readonly unknown[]): Promise<T[]> {
  return new Promise<T[]>((resolve, reject) => {
    let waited = false;
    const acquireTimer = deadline(limits.acquireMs, () => {
      waited = true;
      reject(unavailable('timeout', new Error(`no answer within ${limits.acquireMs} ms`)));
    });
    pool.connect((error: Error | undefined, client: PoolClient | undefined) => {
      clearTimeout(acquireTimer);
      // A connection that arrives after the deadline goes straight back to the pool.
      if (waited) return void client?.release();
      if (error || !client) return reject(connectFailure(error));
      const refused = undefinedParameter(sql, params);
      if (refused) {
        client.release();
        return reject(refused);
      }
      if (limits.prepare) replanIfDue(client);
      let late = false;
      const answerTimer = deadline(limits.answerMs, () => {
        late = true;
        const failure = unavailable('timeout', new Error(`no answer within ${limits.answerMs} ms`));
        // It may still be busy with the statement: closed, not reused (brokenBy).
        client.release(failure);
        reject(failure);
      });
      client.query<T>(queryOf(sql, params, limits), (queryError: Error | undefined, result: { rows: T[] } | undefined) => {
        clearTimeout(answerTimer);
        if (late) return; // its failure was answered at the deadline
        if (queryError || !result) {
          const failure = fromPostgresError(queryError) ?? queryError;
          client.release(brokenBy(failure));
          return reject(failure);
        }
        client.release();
        resolve(result.rows);
      });
    });
  });
}

/** A timer calling `expire` after `ms` (none for 0: no bound), as withDeadline bounds a promise. */
function deadline(ms: number, expire: () => void): NodeJS.Timeout | undefined {
  return ms > 0 ? setTimeout(expire, ms) : undefined;
}

/**
 * BEGIN, the advisory lock, `work`, COMMIT on one connection of the pool; ROLLBACK when anything
 * throws.
 *
 * The pool's connections pipeline (servingPool), and BEGIN is not waited for: it goes out with the
 * statement after it (the lock, or `work`'s first), one round trip less a transaction. The server
 * runs them in order, so that statement still runs inside the transaction. This leans on BEGIN not
 * failing on its own: on a connection the pool hands out (never one left inside a transaction: a
 * failed ROLLBACK closes it, below) BEGIN fails only with the connection, and then so does
 * everything sent after it (docs/decisions.md, "A transaction's first round trip"). The lock is
 * waited for, as before: a statement sent behind a lock that waits would wait within its own
 * answer bound.
 */
export async function pgTransaction<T>(pool: Pool, limits: PgLimits, work: (tx: Sql) => Promise<T>, lock: string | undefined): Promise<T> {
  const client = await acquire(pool, limits);
  if (limits.prepare) replanIfDue(client);
  let broken: Error | undefined;
  const tx: Sql = {
    query: async <R extends Row = Row>(sql: string, params: readonly unknown[] = []) => {
      try {
        return await statement<R>(client, sql, params, limits);
      } catch (error) {
        broken ??= brokenBy(error);
        throw error;
      }
    },
  };
  const begun = tx.query('BEGIN');
  // Awaited below, after `work` or once something failed; until then its failure is no unhandled rejection.
  begun.catch(() => undefined);
  try {
    if (lock !== undefined) await tx.query(LOCK_SECTION, [lock]);
    const result = await work(tx);
    await begun;
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    // A statement failing behind a failed BEGIN says only that the connection failed; BEGIN's
    // failure is the one to report.
    const first = await begun.then(
      () => error,
      (beginError: unknown) => beginError,
    );
    // A connection whose ROLLBACK fails is in an unknown state: it is closed, not reused. One
    // already known to be broken is not asked at all (it would only time out again).
    if (!broken) await tx.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw first;
  } finally {
    client.release(broken);
  }
}

/**
 * Whether writes to `tables` can go ahead now: in a transaction that is rolled back, a statement
 * per table that takes the lock a write takes and is refused on a read-only database, yet
 * changes no row. Bounded by `ms` on the server (lock and statement timeouts) and here.
 */
export async function pgProbeWrites(pool: Pool, limits: PgLimits, tables: ReadonlyArray<{ name: string; key: string }>, ms: number): Promise<void> {
  // The lock wait ends first, so that a held lock is reported as such rather than as slowness.
  const lockMs = Math.max(1, Math.floor(ms / 2));
  const statementMs = Math.max(lockMs + 1, Math.floor((ms * 3) / 4));
  await pgTransaction(
    pool,
    { acquireMs: Math.min(limits.acquireMs || ms, ms), answerMs: ms, prepare: limits.prepare },
    async (tx) => {
      // Integers computed here: SET takes no parameters.
      await tx.query(`SET LOCAL lock_timeout = ${lockMs}`);
      await tx.query(`SET LOCAL statement_timeout = ${statementMs}`);
      for (const { name, key } of tables) await tx.query(`UPDATE ${name} SET ${key} = ${key} WHERE false`);
      throw new ProbeDone();
    },
    undefined,
  ).catch((error: unknown) => {
    if (!(error instanceof ProbeDone)) throw error;
  });
}

/** Ends the probe's transaction with a rollback: nothing it did is kept. */
class ProbeDone extends Error {}
