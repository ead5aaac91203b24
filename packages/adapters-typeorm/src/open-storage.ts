import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { AuthDeps, UnitOfWork } from '@svc/core';
import { DataSource } from 'typeorm';
import { Database, type StorageKind } from './database';
import { TypeormConsoleSignOutStore } from './typeorm-console-sign-out-store';
import { MIGRATION_TIMEOUTS } from './database-timeouts';
import { postgresOptions, sqliteOptions, type OpenStorageOptions } from './connection-options';

export type { OpenStorageOptions } from './connection-options';
import { unavailable } from './unavailable';
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
import { TypeormAuditLog } from './typeorm-audit-log';
import { TypeormRateLimitStats } from './typeorm-rate-limit-stats';
import { TypeormWebhookStore } from './typeorm-webhook-store';

/** The storage ports (same shape as `StoragePorts` of `@svc/core/testing`). */
export type StoragePorts = Pick<AuthDeps, 'projects' | 'apiKeys' | 'users' | 'sessions' | 'signingKeys'>;

/** Storage ports backed by one open database, plus what the composition root needs to run it. */
export type TypeormStorage = StoragePorts &
  Pick<AuthDeps, 'twoFactor' | 'passkeys' | 'oauthProviders' | 'identities' | 'knownDevices'> & {
    /** Single-use tokens (magic link, reset, challenges). */
    oneTimeTokens: TypeormOneTimeTokenStore;
    /** The mail outbox; shares the database with oneTimeTokens (a link's token and mail are one transaction). */
    outbox: TypeormMailOutbox;
    /**
     * The same outbox for its delivery worker (claims, marks, releases). On PostgreSQL its statements
     * go to a pool of their own (`WORKER_POOL_SIZE` connections), so a claim does not queue behind
     * every request waiting for a connection of the requests' pool, nor delivery take one from them;
     * elsewhere it is `outbox`.
     */
    workerOutbox: TypeormMailOutbox;
    /** Relying parties and the state of the hosted OIDC provider. */
    oidcClients: TypeormOidcClientStore;
    oidcArtifacts: TypeormOidcArtifactStore;
    /** The append-only audit log of security events. */
    auditLog: TypeormAuditLog;
    /** Requests refused with 429 per environment and hour (flushed by RateLimitedTally). */
    rateLimitStats: TypeormRateLimitStats;
    /** Webhook endpoints, their delivery queue and log. */
    webhooks: TypeormWebhookStore;
    /** Console sessions signed out before their expiry. */
    consoleSignOuts: TypeormConsoleSignOutStore;
    /**
     * The underlying DataSource (migrations, tooling, inspection). On SQLite, statements sent
     * through it bypass the write queue below; on PostgreSQL its pool is a small one of its own.
     * For application SQL use `database`.
     */
    dataSource: DataSource;
    /** Plain SQL with this adapter's transaction rules (SQLite write queue, PostgreSQL advisory locks). */
    database: Database;
    /** `database` as core's UnitOfWork: a change and its audit entry in one transaction across these stores. */
    unitOfWork: UnitOfWork;
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
/** Connections of the DataSource's own PostgreSQL pool when the ports are served by another (tooling, inspection). */
const TOOLING_POOL_SIZE = 1;
/**
 * Connections of the outbox worker's PostgreSQL pool: one round at a time per process uses one
 * (its claim, then its marks); the second serves a failure recorded while another statement of
 * the round is out. Under a load of mail requests the worker's claims waited 100 to 170 ms each
 * for a connection of the requests' pool, and mail piled up (bench/README.md, round 11).
 */
const WORKER_POOL_SIZE = 2;

/**
 * Opens PostgreSQL or SQLite, brings the schema up to date with the bundled migrations (never
 * `synchronize`) and returns the repositories. Close it when done.
 */
export async function openStorage(options: OpenStorageOptions): Promise<TypeormStorage> {
  const kind = kindOf(options);
  // PostgreSQL: the ports are served by a pg pool of our own (see Database), unless TypeORM is
  // to log every statement; the DataSource then keeps only a small pool for tooling.
  const ownPool = kind === 'postgres' && !options.logging;
  const dataSource = await openDataSource(ownPool ? { ...options, poolSize: TOOLING_POOL_SIZE } : options);
  const db = new Database(dataSource, kind, { timeouts: options.timeouts, pool: ownPool ? options : undefined });
  const workerDb = ownPool ? new Database(dataSource, kind, { timeouts: options.timeouts, pool: { ...options, poolSize: WORKER_POOL_SIZE }, sharesDataSource: true }) : db;
  const outbox = new TypeormMailOutbox(db);
  return {
    dataSource,
    database: db,
    unitOfWork: db,
    kind,
    projects: new TypeormProjectRepository(db),
    apiKeys: new TypeormApiKeyRepository(db),
    users: new TypeormUserRepository(db),
    sessions: new TypeormSessionStore(db),
    signingKeys: new TypeormSigningKeyStore(db),
    oneTimeTokens: new TypeormOneTimeTokenStore(db),
    outbox,
    workerOutbox: workerDb === db ? outbox : new TypeormMailOutbox(workerDb),
    twoFactor: new TypeormTwoFactorStore(db),
    passkeys: new TypeormPasskeyStore(db),
    knownDevices: new TypeormKnownDeviceStore(db),
    oauthProviders: new TypeormOAuthProviderStore(db),
    identities: new TypeormIdentityRepository(db),
    oidcClients: new TypeormOidcClientStore(db),
    oidcArtifacts: new TypeormOidcArtifactStore(db),
    auditLog: new TypeormAuditLog(db),
    rateLimitStats: new TypeormRateLimitStats(db),
    webhooks: new TypeormWebhookStore(db),
    consoleSignOuts: new TypeormConsoleSignOutStore(db),
    ping: async () => {
      await db.query('SELECT 1 AS ok');
    },
    probe: async (timeoutMs) => {
      if (kind === 'sqlite') await checkFreeSpace(options.sqlitePath!, options.sqliteMinFreeBytes ?? DEFAULT_SQLITE_MIN_FREE_BYTES);
      await db.probeWrites(WRITE_TABLES, timeoutMs);
    },
    close: async () => {
      if (workerDb !== db) await workerDb.close();
      await db.close();
    },
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

/** SQLite's part of readiness that no statement shows: room on the disk for the next writes. */
async function checkFreeSpace(sqlitePath: string, minFreeBytes: number): Promise<void> {
  if (sqlitePath === ':memory:') return;
  const disk = await statfs(dirname(resolve(sqlitePath)));
  if (disk.bavail * disk.bsize < minFreeBytes) throw unavailable('disk_full', new Error(`less than ${minFreeBytes} bytes free`));
}
