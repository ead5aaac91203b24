import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Client, Pool, PoolConfig } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './database-timeouts';
import { migrations } from './migrations';
import { sqliteDriver } from './sqlite-driver';

/** The pg driver, required when a PostgreSQL connection is first opened: on SQLite it never loads. */
export function pgDriver(): typeof import('pg') {
  return require('pg') as typeof import('pg');
}

// How the connections are opened: TypeORM's DataSource on either database (the connection and
// the migrations), and on PostgreSQL the pg pool that serves the ports' statements.

export interface OpenStorageOptions {
  /** `postgres://` or `postgresql://` selects PostgreSQL; leave unset for SQLite. */
  databaseUrl?: string;
  /** SQLite file (its folder is created) or ':memory:'. Required when `databaseUrl` is unset. */
  sqlitePath?: string;
  /** PostgreSQL schema to use (created if missing); default: the server's search_path. */
  schema?: string;
  /** Log every SQL statement (TypeORM logging). */
  logging?: boolean;
  /**
   * Maximum PostgreSQL connections serving the ports (pg's default, 10, otherwise). With `logging`
   * off the DataSource keeps one more of its own, for `dataSource` users. Ignored for SQLite.
   */
  poolSize?: number;
  /** Bounds on waiting for the database (database-timeouts.ts); each field defaults to DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: Partial<DatabaseTimeouts>;
  /**
   * PostgreSQL: the busiest statements are prepared on each connection, parsed and planned once
   * (default true; prepared.ts). Set false behind a pooler that moves a client between server
   * connections within a session: PgBouncer in transaction mode before 1.21, or without
   * `max_prepared_statements`.
   */
  preparedStatements?: boolean;
  /** SQLite: below this many free bytes where the file lives, `probe` reports the disk full. Default 8 MiB. */
  sqliteMinFreeBytes?: number;
  /**
   * Run pending migrations while opening (default true). With false nothing is created or
   * changed (not even a missing PostgreSQL schema): for deploy pipelines that migrate first
   * (`svc migrate`) and for read-only checks (`pendingMigrations`).
   */
  migrationsRun?: boolean;
}

/** SQLite's busy_timeout when lock waits are not bounded (lockMs 0): the largest it takes. */
const SQLITE_UNBOUNDED_BUSY_MS = 2_147_483_647;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Options both databases share: our migrations (run by openDataSource), no synchronize and no
 * entities. The repositories send their own SQL (Database); TypeORM keeps the connection and
 * runs the migrations.
 */
function commonOptions(options: OpenStorageOptions) {
  return {
    migrations,
    // openDataSource runs them itself, so that PostgreSQL can take a lock first.
    migrationsRun: false,
    migrationsTransactionMode: 'all' as const,
    synchronize: false,
    logging: options.logging ?? false,
    // TypeORM 1.x already throws on null/undefined in find `where`; stated so it stays that way.
    invalidWhereValuesBehavior: { null: 'throw' as const, undefined: 'throw' as const },
  };
}

export function sqliteOptions(options: OpenStorageOptions): DataSourceOptions {
  const path = options.sqlitePath!;
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const lockMs = timeoutsOf(options).lockMs;
  const busyMs = lockMs > 0 ? lockMs : SQLITE_UNBOUNDED_BUSY_MS;
  return {
    type: 'better-sqlite3',
    driver: sqliteDriver(),
    database: inMemory ? path : resolve(path),
    ...commonOptions(options),
    // How long a statement waits for another process's write lock before failing (SQLITE_BUSY).
    timeout: busyMs,
    // WAL lets readers in other processes (CLI, backups) run while the API writes. TypeORM also
    // switches foreign keys on; we state it here so it holds before the first statement.
    enableWAL: !inMemory,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma(`busy_timeout = ${busyMs}`);
      db.pragma('foreign_keys = ON');
      // Safe with WAL (a crash can lose the last commits, never corrupt) and much faster.
      if (!inMemory) db.pragma('synchronous = NORMAL');
    },
  };
}

export async function postgresOptions(options: OpenStorageOptions, createSchema: boolean): Promise<DataSourceOptions> {
  const { databaseUrl, schema } = options;
  if (schema !== undefined) {
    // Only plain lower-case names: the name goes into DDL and into the connection's options.
    if (!SCHEMA_NAME.test(schema)) throw new Error('schema must match /^[a-z_][a-z0-9_]{0,62}$/');
    if (createSchema) await createSchemaIfMissing(databaseUrl!, schema, timeoutsOf(options).connectMs);
  }
  return {
    type: 'postgres',
    url: databaseUrl,
    ...commonOptions(options),
    ...(schema !== undefined ? { schema } : {}),
    ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
    connectTimeoutMS: timeoutsOf(options).connectMs,
    extra: connectionSettings(options),
    // No generated uuid columns: ids come from the application, so no extension is needed.
    installExtensions: false,
  };
}

/**
 * What every PostgreSQL connection starts with, in TypeORM's pool (through `extra`) and in the
 * serving pool alike.
 */
function connectionSettings(options: Pick<OpenStorageOptions, 'schema' | 'timeouts'>): PoolConfig {
  const timeouts = timeoutsOf(options);
  return {
    // Our SQL names tables without a schema, so each pooled connection starts with search_path
    // set to the chosen schema (the migration creates its tables there too).
    ...(options.schema !== undefined ? { options: `-c search_path=${options.schema}` } : {}),
    // Sent at connection start, so they hold for every statement; 0 is not sent (no bound).
    ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
    ...(timeouts.lockMs > 0 ? { lock_timeout: timeouts.lockMs } : {}),
    keepAlive: timeouts.keepAliveMs > 0,
    ...(timeouts.keepAliveMs > 0 ? { keepAliveInitialDelayMillis: timeouts.keepAliveMs } : {}),
    // pg closes a connection idle for 10 s unless told otherwise; 0 here is pg's own "never".
    idleTimeoutMillis: timeouts.idleMs,
  };
}

/** What the pool serving the ports' statements is opened with (see Database). */
export type PoolSettings = Pick<OpenStorageOptions, 'databaseUrl' | 'schema' | 'poolSize' | 'timeouts' | 'preparedStatements'>;

/** The pg pool the ports' statements go to: the DataSource's connection settings, `poolSize` connections. */
export function servingPool(options: PoolSettings): Pool {
  const pool = new (pgDriver().Pool)({
    connectionString: options.databaseUrl,
    connectionTimeoutMillis: timeoutsOf(options).connectMs,
    // Each statement is sent when it is asked for, not once the one before it has answered: a
    // transaction's BEGIN goes out with its first statement (pgTransaction), and a connection's
    // DISCARD PLANS with the statement after it (replanIfDue). Statements that wait for each
    // other's answers still do; each has its own answer or error, as before.
    pipeline: true,
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
    ...connectionSettings(options),
  });
  // An idle connection that fails (a server restart, a cut network) leaves the pool, and the
  // next statement opens another; without a listener its 'error' event would end the process.
  pool.on('error', () => undefined);
  // One that fails while it is handed out emits 'error' on its client, which the pool hears only
  // while the client is idle: heard here, for good. The statement on it fails as well, or the next
  // one does, and its holder releases it as broken (pg-statements.ts, brokenBy).
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * One PostgreSQL connection of its own with the serving pool's settings (the change feed's
 * listener: LISTEN needs a session that no pool hands to someone else).
 */
export function dedicatedClient(options: PoolSettings): Client {
  return new (pgDriver().Client)({ connectionString: options.databaseUrl, connectionTimeoutMillis: timeoutsOf(options).connectMs, ...connectionSettings(options) });
}

function timeoutsOf(options: Pick<OpenStorageOptions, 'timeouts'>): DatabaseTimeouts {
  return { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
}

/** Runs before TypeORM connects: its migrations table must be created inside the schema. */
export async function createSchemaIfMissing(url: string, schema: string, connectMs = DEFAULT_DATABASE_TIMEOUTS.connectMs): Promise<void> {
  // Checked here too: the name is interpolated into DDL below.
  if (!SCHEMA_NAME.test(schema)) throw new Error('schema must match /^[a-z_][a-z0-9_]{0,62}$/');
  const client = new (pgDriver().Client)({ connectionString: url, connectionTimeoutMillis: connectMs });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (error) {
    // Two processes starting at once can both pass IF NOT EXISTS; the loser's error is harmless.
    const code = (error as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  } finally {
    await client.end();
  }
}
