import { mkdirSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AuthDeps } from '@svc/core';
import { Client } from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { Database, type StorageKind } from './database';
import { DEFAULT_DATABASE_TIMEOUTS, MIGRATION_TIMEOUTS, type DatabaseTimeouts } from './database-timeouts';
import { unavailable } from './unavailable';
import { entitiesFor } from './entities';
import { migrations } from './migrations';
import { runMigrationsLocked } from './migration-lock';
import { TypeormApiKeyRepository } from './typeorm-api-key-repository';
import { TypeormProjectRepository } from './typeorm-project-repository';
import { TypeormSessionStore } from './typeorm-session-store';
import { TypeormSigningKeyStore } from './typeorm-signing-key-store';
import { TypeormUserRepository } from './typeorm-user-repository';
import { TypeormMailOutbox } from './typeorm-mail-outbox';
import { TypeormOneTimeTokenStore } from './typeorm-one-time-token-store';
import { TypeormPasskeyStore } from './typeorm-passkey-store';
import { TypeormTwoFactorStore } from './typeorm-two-factor-store';
import { TypeormIdentityRepository } from './typeorm-identity-repository';
import { TypeormOAuthProviderStore } from './typeorm-oauth-provider-store';
import { TypeormOidcArtifactStore } from './typeorm-oidc-artifact-store';
import { TypeormOidcClientStore } from './typeorm-oidc-client-store';
import { TypeormKnownDeviceStore } from './typeorm-known-device-store';

/** The storage ports (same shape as `StoragePorts` of `@svc/core/testing`). */
export type StoragePorts = Pick<AuthDeps, 'projects' | 'apiKeys' | 'users' | 'sessions' | 'signingKeys'>;

/** Storage ports backed by one open database, plus what the composition root needs to run it. */
export type TypeormStorage = StoragePorts & Pick<AuthDeps, 'twoFactor' | 'passkeys' | 'oauthProviders' | 'identities' | 'knownDevices'> & {
  /** Single-use tokens (magic link, reset, challenges). */
  oneTimeTokens: TypeormOneTimeTokenStore;
  /** The mail outbox; shares the database with oneTimeTokens (a link's token and mail are one transaction). */
  outbox: TypeormMailOutbox;
  /** Relying parties and the state of the hosted OIDC provider (issue 7). */
  oidcClients: TypeormOidcClientStore;
  oidcArtifacts: TypeormOidcArtifactStore;
  /**
   * The underlying DataSource, for tooling and inspection. On SQLite, statements sent through it
   * bypass the write queue below; for application SQL use `database`.
   */
  dataSource: DataSource;
  /** Plain SQL with this adapter's transaction rules (SQLite write queue, PostgreSQL advisory locks). */
  database: Database;
  kind: StorageKind;
  /** Resolves when the database answers `SELECT 1`. */
  ping(): Promise<void>;
  /**
   * Readiness: resolves when the service could do its work within `timeoutMs`: reachable, the
   * tables it writes on every sign-in neither locked by someone else nor read-only, and (SQLite)
   * disk space left. Rejects with `service_unavailable`, `details.reason` saying why. Writes nothing.
   */
  probe(timeoutMs: number): Promise<void>;
  /** Waits for queued work and closes the connection(s). */
  close(): Promise<void>;
};

export interface OpenStorageOptions {
  /** `postgres://` or `postgresql://` selects PostgreSQL; leave unset for SQLite. */
  databaseUrl?: string;
  /** SQLite file (its folder is created) or ':memory:'. Required when `databaseUrl` is unset. */
  sqlitePath?: string;
  /** PostgreSQL schema to use (created if missing); default: the server's search_path. */
  schema?: string;
  /** Log every SQL statement (TypeORM logging). */
  logging?: boolean;
  /** Maximum PostgreSQL connections (pg pool default otherwise). Ignored for SQLite. */
  poolSize?: number;
  /** Bounds on waiting for the database (database-timeouts.ts); each field defaults to DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: Partial<DatabaseTimeouts>;
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
/**
 * Below this much free space where the SQLite file lives the instance says it is not ready: a
 * write that needs a page more fails with SQLITE_FULL, and the WAL grows before it is checkpointed.
 */
const DEFAULT_SQLITE_MIN_FREE_BYTES = 8 * 1024 * 1024;
/** The tables every sign-in, refresh or e-mail link writes, with their keys (for the write probe). */
const WRITE_TABLES = [
  { name: 'users', key: 'id' },
  { name: 'sessions', key: 'id' },
  { name: 'refresh_tokens', key: 'token_hash' },
  { name: 'one_time_tokens', key: 'token_hash' },
  { name: 'mail_outbox', key: 'id' },
];
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Opens PostgreSQL or SQLite, brings the schema up to date with the bundled migrations (never
 * `synchronize`) and returns the repositories. Close it when done.
 */
export async function openStorage(options: OpenStorageOptions): Promise<TypeormStorage> {
  const kind = kindOf(options);
  const dataSource = await openDataSource(options);
  const db = new Database(dataSource, kind, { timeouts: options.timeouts });
  return {
    dataSource,
    database: db,
    kind,
    projects: new TypeormProjectRepository(db),
    apiKeys: new TypeormApiKeyRepository(db),
    users: new TypeormUserRepository(db),
    sessions: new TypeormSessionStore(db),
    signingKeys: new TypeormSigningKeyStore(db),
    oneTimeTokens: new TypeormOneTimeTokenStore(db),
    outbox: new TypeormMailOutbox(db),
    twoFactor: new TypeormTwoFactorStore(db),
    passkeys: new TypeormPasskeyStore(db),
    knownDevices: new TypeormKnownDeviceStore(db),
    oauthProviders: new TypeormOAuthProviderStore(db),
    identities: new TypeormIdentityRepository(db),
    oidcClients: new TypeormOidcClientStore(db),
    oidcArtifacts: new TypeormOidcArtifactStore(db),
    ping: async () => {
      await db.query('SELECT 1 AS ok');
    },
    probe: async (timeoutMs) => {
      if (kind === 'sqlite') await checkFreeSpace(options.sqlitePath!, options.sqliteMinFreeBytes ?? DEFAULT_SQLITE_MIN_FREE_BYTES);
      await db.probeWrites(WRITE_TABLES, timeoutMs);
    },
    close: () => db.close(),
  };
}

/**
 * Opens the TypeORM DataSource with our entities and migrations and, unless
 * `migrationsRun: false`, runs the pending migrations (under an advisory lock on PostgreSQL, so
 * replicas starting together migrate one after the other). For tooling; the API uses openStorage.
 */
export async function openDataSource(options: OpenStorageOptions): Promise<DataSource> {
  const kind = kindOf(options);
  const migrate = options.migrationsRun !== false;
  // PostgreSQL migrations run on connections of their own, without the statement and lock
  // timeouts of serving connections: a schema change may rightly take longer than a request.
  if (migrate && kind === 'postgres') await migrateOnce({ ...options, timeouts: { ...options.timeouts, ...MIGRATION_TIMEOUTS } });
  const dataSource = new DataSource(kind === 'postgres' ? await postgresOptions(options, false) : sqliteOptions(options));
  try {
    await dataSource.initialize();
    if (migrate && kind === 'sqlite') await runMigrationsLocked(dataSource);
  } catch (error) {
    // A failed migration leaves the pool (or file handle) open; release it before reporting.
    if (dataSource.isInitialized) await dataSource.destroy().catch(() => undefined);
    throw error;
  }
  return dataSource;
}

/** Runs the pending PostgreSQL migrations on a DataSource opened for that alone. */
async function migrateOnce(options: OpenStorageOptions): Promise<void> {
  const dataSource = new DataSource(await postgresOptions({ ...options, poolSize: 2 }, true));
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** `sqlite` or `postgres` from the options; throws on a URL of another scheme. */
export function kindOf(options: OpenStorageOptions): StorageKind {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//i.test(url)) return 'postgres';
  // A URL of another scheme would otherwise silently fall back to a local SQLite file.
  if (url) throw new Error('databaseUrl must start with postgres:// or postgresql:// (leave it unset for SQLite)');
  if (!options.sqlitePath) throw new Error('sqlitePath is required when databaseUrl is not set');
  return 'sqlite';
}

/** Options both databases share: our entities and migrations (run by openDataSource), no synchronize. */
function commonOptions(kind: StorageKind, options: OpenStorageOptions) {
  return {
    entities: entitiesFor(kind),
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

function sqliteOptions(options: OpenStorageOptions): DataSourceOptions {
  const path = options.sqlitePath!;
  const inMemory = path === ':memory:';
  if (!inMemory) mkdirSync(dirname(resolve(path)), { recursive: true });
  const lockMs = timeoutsOf(options).lockMs;
  const busyMs = lockMs > 0 ? lockMs : SQLITE_UNBOUNDED_BUSY_MS;
  return {
    type: 'better-sqlite3',
    database: inMemory ? path : resolve(path),
    ...commonOptions('sqlite', options),
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

async function postgresOptions(options: OpenStorageOptions, createSchema: boolean): Promise<DataSourceOptions> {
  const { databaseUrl, schema } = options;
  if (schema !== undefined) {
    // Only plain lower-case names: the name goes into DDL and into the connection's options.
    if (!SCHEMA_NAME.test(schema)) throw new Error('schema must match /^[a-z_][a-z0-9_]{0,62}$/');
    if (createSchema) await createSchemaIfMissing(databaseUrl!, schema, timeoutsOf(options).connectMs);
  }
  const timeouts = timeoutsOf(options);
  return {
    type: 'postgres',
    url: databaseUrl,
    ...commonOptions('postgres', options),
    ...(schema !== undefined ? { schema } : {}),
    ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
    connectTimeoutMS: timeouts.connectMs,
    extra: {
      // Our SQL names tables without a schema, so each pooled connection starts with search_path
      // set to the chosen schema (the migration creates its tables there too).
      ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
      // Sent at connection start, so they hold for every statement; 0 is not sent (no bound).
      ...(timeouts.statementMs > 0 ? { statement_timeout: timeouts.statementMs } : {}),
      ...(timeouts.lockMs > 0 ? { lock_timeout: timeouts.lockMs } : {}),
      keepAlive: timeouts.keepAliveMs > 0,
      ...(timeouts.keepAliveMs > 0 ? { keepAliveInitialDelayMillis: timeouts.keepAliveMs } : {}),
    },
    // No generated uuid columns: ids come from the application, so no extension is needed.
    installExtensions: false,
  };
}

function timeoutsOf(options: OpenStorageOptions): DatabaseTimeouts {
  return { ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts };
}

/** SQLite's part of readiness that no statement shows: room on the disk for the next writes. */
async function checkFreeSpace(sqlitePath: string, minFreeBytes: number): Promise<void> {
  if (sqlitePath === ':memory:') return;
  const disk = await statfs(dirname(resolve(sqlitePath)));
  if (disk.bavail * disk.bsize < minFreeBytes) throw unavailable('disk_full', new Error(`less than ${minFreeBytes} bytes free`));
}

/** Runs before TypeORM connects: its migrations table must be created inside the schema. */
export async function createSchemaIfMissing(url: string, schema: string, connectMs = DEFAULT_DATABASE_TIMEOUTS.connectMs): Promise<void> {
  // Checked here too: the name is interpolated into DDL below.
  if (!SCHEMA_NAME.test(schema)) throw new Error('schema must match /^[a-z_][a-z0-9_]{0,62}$/');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: connectMs });
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
