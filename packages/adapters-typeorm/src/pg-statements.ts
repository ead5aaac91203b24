import type { Pool, PoolClient } from 'pg';
import { AuthError } from '@svc/core';
import type { Row, Sql } from './sql';
import { fromPostgresError, unavailable, unavailableReason, withDeadline } from './unavailable';

/** How long this process waits on the pool and on each statement; 0 = no bound. */
export interface PgLimits {
  /** For a connection of the pool, opening one included. */
  acquireMs: number;
  /** For a statement's answer. Set above the server's statement_timeout, so this catches a silent server. */
  answerMs: number;
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
    throw error instanceof AuthError ? error : (fromPostgresError(error) ?? unavailable('unreachable', error));
  }
}

/** One statement on `client`, bounded by `answerMs`; driver failures become `service_unavailable`. */
async function statement<T extends Row>(client: PoolClient, sql: string, params: readonly unknown[], answerMs: number): Promise<T[]> {
  // TypeORM treats undefined as "no condition"; in raw SQL it would bind as NULL. Either way an
  // unchecked value slipped through (every value is validated before it reaches SQL), so refuse
  // it rather than guess.
  if (params.some((p) => p === undefined)) throw new TypeError(`undefined SQL parameter in: ${sql}`);
  try {
    // Unnamed statements on purpose (bench/README.md, rounds 1 and 6): named (prepared) ones get
    // generic plans, and one made before the tables had statistics read a refresh token through
    // the tenant's (project_id, environment) indexes, scanning all its sessions and tokens; with
    // plan_cache_mode = force_custom_plan they only save parsing, which did not show per request.
    return (await withDeadline(client.query<T>(sql, [...params]), answerMs, 'timeout')).rows;
  } catch (error) {
    throw fromPostgresError(error) ?? error;
  }
}

/**
 * The error to release a connection with, so that the pool closes it instead of reusing it: one
 * that did not answer in time may still be busy with the statement, and one whose socket failed
 * is gone. Server errors (lock timeout, read-only) leave the connection as good as before.
 */
function brokenBy(error: unknown): Error | undefined {
  const reason = unavailableReason(error);
  return reason === 'timeout' || reason === 'unreachable' ? (error as Error) : undefined;
}

/** One statement on a connection of its own. */
export async function pgQuery<T extends Row>(pool: Pool, limits: PgLimits, sql: string, params: readonly unknown[]): Promise<T[]> {
  const client = await acquire(pool, limits);
  let broken: Error | undefined;
  try {
    return await statement<T>(client, sql, params, limits.answerMs);
  } catch (error) {
    broken = brokenBy(error);
    throw error;
  } finally {
    client.release(broken);
  }
}

/** BEGIN, the advisory lock, `work`, COMMIT on one connection of the pool; ROLLBACK when anything throws. */
export async function pgTransaction<T>(pool: Pool, limits: PgLimits, work: (tx: Sql) => Promise<T>, lock: string | undefined): Promise<T> {
  const client = await acquire(pool, limits);
  let broken: Error | undefined;
  const tx: Sql = {
    query: async <R extends Row = Row>(sql: string, params: readonly unknown[] = []) => {
      try {
        return await statement<R>(client, sql, params, limits.answerMs);
      } catch (error) {
        broken ??= brokenBy(error);
        throw error;
      }
    },
  };
  try {
    await tx.query('BEGIN');
    // hashtextextended turns the name into the 64-bit key the lock function wants; a rare hash
    // collision only makes two unrelated sections wait for each other, never breaks them. The
    // wait counts against lock_timeout like any other lock.
    if (lock !== undefined) await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lock]);
    const result = await work(tx);
    await tx.query('COMMIT');
    return result;
  } catch (error) {
    // A connection whose ROLLBACK fails is in an unknown state: it is closed, not reused. One
    // already known to be broken is not asked at all (it would only time out again).
    if (!broken) await tx.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    throw error;
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
    { acquireMs: Math.min(limits.acquireMs || ms, ms), answerMs: ms },
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
