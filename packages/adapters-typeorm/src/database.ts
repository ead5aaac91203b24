import { AsyncLocalStorage } from 'node:async_hooks';
import type { UnitOfWork } from '@svc/core';
import type { Pool } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { servingPool, type PoolSettings } from './connection-options';
import { DEFAULT_DATABASE_TIMEOUTS, answerMsOf, type DatabaseTimeouts } from './database-timeouts';
import { pgProbeWrites, pgQuery, pgTransaction, type PgLimits } from './pg-statements';
import { SqliteMutex } from './sqlite-mutex';
import { LOCK_SECTION, type Row, type Sql } from './sql';
import { fromPostgresError, fromSqliteError } from './unavailable';

/** The two databases this adapter speaks. */
export type StorageKind = 'postgres' | 'sqlite';

// Row and Sql have their own file so pg-statements.ts, which this file uses, need not import it.
export type { Row, Sql } from './sql';

/** The transaction of one open unit of work, and what waits for its commit. */
interface OpenUnit {
  tx: Sql;
  /** False once the unit has committed or rolled back: work it started and left running goes on its own. */
  open: boolean;
  effects: (() => Promise<void> | void)[];
  /** Savepoints taken so far (their names are numbered). */
  savepoints: number;
}

/**
 * Thin layer over a TypeORM DataSource: plain parameterised SQL, one placeholder style, and
 * transactions that are safe under concurrency on both databases. Repositories use only this.
 *
 * It is also the stores' UnitOfWork: inside `run`, every `query` and `transaction` of every
 * store on this Database joins one transaction (found through AsyncLocalStorage, so no store
 * signature carries it; docs/decisions.md, "One transaction for a change and its record").
 */
export class Database implements Sql, UnitOfWork {
  private readonly mutex = new SqliteMutex();
  private readonly units = new AsyncLocalStorage<OpenUnit>();
  /**
   * PostgreSQL statements go straight to a pg pool of this Database's own when it is given
   * `pool` settings (openStorage gives the DataSource's, search_path and timeouts included). A
   * TypeORM QueryRunner per statement (pool checkout through callbacks, query events,
   * QueryResult mapping) cost about a tenth of a /me request (bench/README.md). Without one
   * (openStorage asks for none with TypeORM logging on) statements go through TypeORM, which
   * logs them.
   */
  private readonly pool: Pool | null;
  /** The timeouts the connections were opened with (database-timeouts.ts); the pool waits and answers are bounded here. */
  readonly timeouts: DatabaseTimeouts;
  private readonly limits: PgLimits;
  private closed: Promise<void> | undefined;

  /** Whether `close` also destroys the DataSource (false: another Database over it does). */
  private readonly ownsDataSource: boolean;

  /**
   * `pool` (PostgreSQL only): open a pg pool with these settings for the statements; `close` ends
   * it. `sharesDataSource`: another Database owns the DataSource, so `close` ends only this one's
   * pool (a second pool over the same database, as openStorage opens for the outbox's worker).
   */
  constructor(
    readonly dataSource: DataSource,
    readonly kind: StorageKind,
    options: { timeouts?: Partial<DatabaseTimeouts>; pool?: PoolSettings; sharesDataSource?: boolean } = {},
  ) {
    if (options.pool && kind !== 'postgres') throw new TypeError('a pg pool serves PostgreSQL only');
    if (options.sharesDataSource && !options.pool) throw new TypeError('a Database that shares its DataSource needs a pool of its own');
    this.pool = options.pool ? servingPool(options.pool) : null;
    this.ownsDataSource = !options.sharesDataSource;
    this.timeouts = { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
    this.limits = { acquireMs: this.timeouts.acquireMs, answerMs: answerMsOf(this.timeouts), prepare: options.pool?.preparedStatements ?? true };
  }

  async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const unit = this.openUnit();
    if (unit) return unit.tx.query<T>(sql, params);
    if (this.kind === 'sqlite') {
      // Even single statements queue behind open transactions: on the one shared connection they
      // would otherwise read uncommitted rows or become part of someone else's transaction.
      return this.mutex.run(() => run<T>(this.dataSource.createQueryRunner(), this.kind, sql, params));
    }
    if (this.pool) return pgQuery<T>(this.pool, this.limits, sql, params);
    const runner = this.dataSource.createQueryRunner();
    try {
      return await run<T>(runner, this.kind, sql, params);
    } finally {
      await runner.release();
    }
  }

  /**
   * Resolves when writes to `tables` could go ahead within `timeoutMs` (no lock held against
   * them, the database not read-only, reachable); rejects with `service_unavailable` naming the
   * reason otherwise. Changes nothing. For readiness probes.
   */
  async probeWrites(tables: ReadonlyArray<{ name: string; key: string }>, timeoutMs: number): Promise<void> {
    if (this.kind === 'postgres') {
      if (this.pool) return pgProbeWrites(this.pool, this.limits, tables, timeoutMs);
      await this.query('SELECT 1 AS ok');
      return;
    }
    await this.mutex.run(() => this.sqliteProbe(tables, timeoutMs));
  }

  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   *
   * `lock` names a critical section (e.g. one tenant's user table). On PostgreSQL it becomes a
   * transaction-scoped advisory lock, so check-then-insert sequences inside `work` cannot race
   * with another instance of the API. On SQLite every transaction is already exclusive.
   */
  async transaction<T>(work: (tx: Sql) => Promise<T>, options: { lock?: string } = {}): Promise<T> {
    const unit = this.openUnit();
    if (unit) return this.joined(unit, work, options.lock);
    return this.kind === 'sqlite' ? this.sqliteTransaction(work) : this.postgresTransaction(work, options.lock);
  }

  /** UnitOfWork.run: one transaction for every store call `work` makes; a nested run joins. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.openUnit()) return work();
    const unit: OpenUnit = { tx: { query: () => Promise.reject(new Error('unit of work not open')) }, open: false, effects: [], savepoints: 0 };
    const result = await this.transaction(async (tx) => {
      unit.tx = tx;
      unit.open = true;
      try {
        return await this.units.run(unit, work);
      } finally {
        unit.open = false;
      }
    });
    for (const effect of unit.effects) await effect();
    return result;
  }

  /**
   * A transaction inside a unit of work: a savepoint in the unit's, so that it still commits or
   * rolls back as a whole (a failed statement a store expects and handles does not abort the
   * unit on PostgreSQL); its lock is taken in the unit's transaction and held until its end.
   */
  private async joined<T>(unit: OpenUnit, work: (tx: Sql) => Promise<T>, lock: string | undefined): Promise<T> {
    const savepoint = `svc_${++unit.savepoints}`;
    await unit.tx.query(`SAVEPOINT ${savepoint}`);
    try {
      if (lock !== undefined && this.kind === 'postgres') await unit.tx.query(LOCK_SECTION, [lock]);
      const result = await work(unit.tx);
      await unit.tx.query(`RELEASE SAVEPOINT ${savepoint}`);
      return result;
    } catch (error) {
      await unit.tx.query(`ROLLBACK TO SAVEPOINT ${savepoint}`);
      throw error;
    }
  }

  /** UnitOfWork.afterCommit. */
  afterCommit(effect: () => Promise<void> | void): boolean {
    const unit = this.openUnit();
    if (!unit) return false;
    unit.effects.push(effect);
    return true;
  }

  /**
   * Whether the caller's statement may carry other callers' work too (a `NaturalBatch`): on
   * PostgreSQL, outside an open unit of work. Inside one, statements are its transaction's own,
   * on its connection; SQLite has one connection and no round trip to share.
   */
  mayShareStatements(): boolean {
    return this.kind === 'postgres' && this.openUnit() === undefined;
  }

  private openUnit(): OpenUnit | undefined {
    const unit = this.units.getStore();
    return unit?.open ? unit : undefined;
  }

  /** Waits for queued SQLite work, then closes the connection (pools) for good. */
  async close(): Promise<void> {
    this.closed ??= this.closeOnce();
    return this.closed;
  }

  private async closeOnce(): Promise<void> {
    await this.pool?.end();
    if (!this.ownsDataSource || !this.dataSource.isInitialized) return;
    if (this.kind === 'sqlite') await this.mutex.run(() => this.dataSource.destroy());
    else await this.dataSource.destroy();
  }

  private async postgresTransaction<T>(work: (tx: Sql) => Promise<T>, lock: string | undefined): Promise<T> {
    if (this.pool) return pgTransaction(this.pool, this.limits, work, lock);
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      const tx = boundTo(runner, this.kind);
      if (lock !== undefined) await tx.query(LOCK_SECTION, [lock]);
      const result = await work(tx);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      throw error;
    } finally {
      await runner.release();
    }
  }

  private sqliteTransaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const runner = this.dataSource.createQueryRunner();
      // IMMEDIATE takes the write lock up front: another process on the same file (the CLI, a
      // second API) then waits on busy_timeout at BEGIN instead of failing halfway through.
      await runner.query('BEGIN IMMEDIATE').catch(rethrowSqlite);
      try {
        const result = await work(boundTo(runner, this.kind));
        await runner.query('COMMIT').catch(rethrowSqlite);
        return result;
      } catch (error) {
        await runner.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** The SQLite form of probeWrites: the write lock within `timeoutMs`, and the statements a write would run. */
  private async sqliteProbe(tables: ReadonlyArray<{ name: string; key: string }>, timeoutMs: number): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    // better-sqlite3 waits for another process's lock synchronously: the probe's wait is bounded
    // by its own timeout, then the connection's usual one is put back.
    await runner.query(`PRAGMA busy_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    try {
      await runner.query('BEGIN IMMEDIATE').catch(rethrowSqlite);
      try {
        for (const { name, key } of tables) await run(runner, this.kind, `UPDATE ${name} SET ${key} = ${key} WHERE 0`, []);
      } finally {
        await runner.query('ROLLBACK').catch(() => undefined);
      }
    } finally {
      await runner.query(`PRAGMA busy_timeout = ${this.timeouts.lockMs}`);
    }
  }
}

function rethrowSqlite(error: unknown): never {
  throw fromSqliteError(error) ?? error;
}

function boundTo(runner: QueryRunner, kind: StorageKind): Sql {
  return { query: (sql, params = []) => run(runner, kind, sql, params) };
}

async function run<T extends Row>(runner: QueryRunner, kind: StorageKind, sql: string, params: readonly unknown[]): Promise<T[]> {
  // TypeORM treats undefined as "no condition"; in raw SQL it would bind as NULL. Either way an
  // unchecked value slipped through, so refuse it rather than guess (docs/security.md).
  if (params.some((p) => p === undefined)) throw new TypeError(`undefined SQL parameter in: ${sql}`);
  const [text, values] = kind === 'sqlite' ? toSqlitePlaceholders(sql, params) : [sql, [...params]];
  try {
    const result = await runner.query(text, values, true);
    return (result.records ?? []) as T[];
  } catch (error) {
    throw (kind === 'sqlite' ? fromSqliteError(error) : fromPostgresError(error)) ?? error;
  }
}

/** better-sqlite3 binds `?` positionally only, so `$n` becomes `?` with its value repeated as needed. */
function toSqlitePlaceholders(sql: string, params: readonly unknown[]): [string, unknown[]] {
  const values: unknown[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index < 0 || index >= params.length) throw new RangeError(`missing SQL parameter $${n}`);
    values.push(params[index]);
    return '?';
  });
  return [text, values];
}
