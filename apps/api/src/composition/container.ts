import { join } from 'node:path';
import { BcryptPasswordHasher, CommonPasswordFile, KeyEncryption, MasterKeySecretBox, Rs256AccessTokenCodec, RsaSigningKeyFactory, signingKeyContext } from '@svc/adapters-crypto';
import { FileMailer, OutboxWorker, SmtpMailer, withEnqueueHook } from '@svc/adapters-smtp';
import { OtpauthTotp, SimpleWebAuthnVerifier } from '@svc/adapters-mfa';
import { HttpOAuthProviderClient } from '@svc/adapters-oauth';
import { openStorage, pendingMigrations, type OpenStorageOptions, type TypeormStorage } from '@svc/adapters-typeorm';
import {
  createAuthService,
  createEventRecorder,
  cryptoRandom,
  purgeExpired,
  RateLimitedTally,
  RoundLoop,
  systemClock,
  withChangeNotices,
  type AuthDeps,
  type ChangeFeed,
  type ConsoleSignOutStore,
  type Mailer,
  type AuthService,
  type PurgeCounts,
  type PurgeOptions,
  type RateLimiter,
} from '@svc/core';
import type { Logger } from 'pino';
import { AfterAnswer } from '../http/after-answer';
import type { RuntimeConfig } from './dev-secrets';
import { StartupError } from './config';
import { Janitor } from './janitor';
import { HttpWebhookTransport } from './webhook-transport';
import { WebhookWorker } from './webhook-worker';
import { createLogger } from './logger';
import { countEvents, type Metrics, type OutboxDepthSource, type WebhookQueueSource } from '../http/metrics';
import { withRequestContext } from '../http/request-context';
import { buildRateLimitStore } from './rate-limit-store';
import { buildOidc } from './oidc-wiring';
import { buildChangeFeed, type ChangeFeedKind } from './change-feed';
import type { AppOidc } from '../http/app-deps';

/** The running service's parts, built from configuration. */
export interface Container {
  auth: AuthService;
  rateLimiter: RateLimiter;
  /** Outbox rows per status for the `svc_outbox_depth` gauge, once there is an outbox. */
  outboxStats?: OutboxDepthSource;
  /** Webhook messages per status and the oldest due one's wait, for the webhook gauges. */
  webhookStats: WebhookQueueSource;
  /** Delivers queued webhooks; started with the outbox worker, stopped by `close()`. */
  webhookWorker: WebhookWorker;
  /** Sends queued mail; main.ts starts it, `close()` stops it. Not started for the CLI. */
  outboxWorker: OutboxWorker;
  /** One purge of expired rows over every tenant, OIDC artifacts included (`svc purge`). */
  purge(options?: PurgeOptions): Promise<PurgeCounts>;
  /** Runs `purge` every SVC_PURGE_INTERVAL_SECONDS; main.ts starts it, `close()` stops it. */
  janitor: Janitor;
  /** Where admin changes are announced to this instance's caches and the other instances'. */
  changes: ChangeFeed;
  changeFeedKind: ChangeFeedKind;
  /** Console sessions signed out before their expiry. */
  consoleSignOuts: ConsoleSignOutStore;
  /** The hosted OIDC provider for Pro projects. */
  oidc: AppOidc;
  /** Runs what magic-link and reset requests do after answering; `close()` waits for it. */
  afterAnswer: AfterAnswer;
  /** Requests refused with 429 per environment and hour, counted in memory (docs/decisions.md, "Rate-limited requests per environment"). */
  rateLimitedTally: RateLimitedTally;
  /** Adds the tally to the database every RATE_LIMITED_FLUSH_MS; started with the workers, `close()` stops it and flushes once more. */
  rateLimitedFlusher: RoundLoop<number>;
  /**
   * Readiness: resolves when the database could take this service's writes within
   * SVC_READY_TIMEOUT_MS; rejects with `service_unavailable` (its `details.reason` says why).
   */
  ready(): Promise<void>;
  /** True when the database holds no project yet (first start of the embedded default). */
  isEmpty(): Promise<boolean>;
  /**
   * Waits for the work of requests already answered (magic links, resets) while it stops the
   * outbox and webhook workers and the janitor, then closes the database connection(s) and Redis.
   * All of it gets `workersMs` together (default SVC_SHUTDOWN_TIMEOUT_MS): the workers start no new
   * send or delivery once stopping and give their claims' rest back unsent; past the budget the
   * mailer drops its connections and the webhook deliveries in flight are aborted (those fail as a
   * try and are retried), and answered work still running is logged as not done. So a silent SMTP
   * server or webhook receiver, or a stuck job, cannot hold the stop.
   */
  close(options?: { workersMs?: number }): Promise<void>;
}

/** What the composition root reports to: logs (Redis outages) and metrics (limiter store failures). */
export interface ContainerOptions {
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * The composition root: the only place that picks and builds adapters.
 * Opening the storage also runs pending migrations, unless SVC_MIGRATE_ON_START=false.
 */
export async function buildContainer(config: RuntimeConfig, options: ContainerOptions = {}): Promise<Container> {
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const opened = await openCurrentStorage(config);
  const encryption = new KeyEncryption({ masterKey: config.masterKey });
  await assertMasterKeyOpens(opened, encryption).catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  const changes = await buildChangeFeed(config, opened, storageOptionsOf(config), logger).catch(async (error: unknown) => {
    await opened.close();
    throw error;
  });
  // Every write of admin-changeable state announces itself, whoever makes it (docs/decisions.md, "Changes reach every instance").
  const storage = withChangeNotices(opened, changes.feed);
  const limits = await buildRateLimitStore({
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    redisTimeoutMs: config.redisTimeoutMs,
    logger,
    onStoreFailure: () => options.metrics?.limiterStoreFailures.inc(),
  });
  const secretBox = new MasterKeySecretBox({ masterKey: config.masterKey });
  // A request's enqueue wakes the worker, so mail leaves at once rather than at the next poll.
  let outboxWorker: OutboxWorker | undefined;
  // Inside a unit of work the mail is not there to claim before the commit: the wake waits for it.
  const outbox = withEnqueueHook(storage.outbox, () => {
    const wake = () => outboxWorker?.wake();
    if (!storage.unitOfWork.afterCommit(wake)) wake();
  });
  const deps: AuthDeps = {
    settings: { issuer: config.baseUrl, planUserLimits: config.planUserLimits, refreshTokenIssueTime: config.refreshTokenIssueTime },
    clock: systemClock,
    random: cryptoRandom,
    projects: storage.projects,
    apiKeys: storage.apiKeys,
    users: storage.users,
    sessions: storage.sessions,
    signingKeys: storage.signingKeys,
    keyFactory: new RsaSigningKeyFactory({ encryption }),
    // Signs on libuv's pool, which nothing slow shares: the hashes below run on threads of their own.
    tokens: new Rs256AccessTokenCodec({ signingKeys: storage.signingKeys, encryption, signOnThreadPool: true }),
    // Hashes below the event loop's priority: a login burst cannot starve /me and refresh (bench/README.md).
    passwords: new BcryptPasswordHasher({ cost: config.bcryptCost, lowPriorityThreads: true }),
    twoFactor: storage.twoFactor,
    passkeys: storage.passkeys,
    totp: new OtpauthTotp(),
    webauthn: new SimpleWebAuthnVerifier(),
    oneTimeTokens: storage.oneTimeTokens,
    secretBox,
    outbox,
    oauthProviders: storage.oauthProviders,
    identities: storage.identities,
    oauthClient: new HttpOAuthProviderClient(),
    // The list shipped with the service, read on the first check of a project that turned it on.
    commonPasswords: new CommonPasswordFile(),
    knownDevices: storage.knownDevices,
    auditLog: storage.auditLog,
    rateLimitStats: storage.rateLimitStats,
    webhooks: storage.webhooks,
    webhookTransport: new HttpWebhookTransport({ allowPrivate: config.webhooksAllowPrivate }),
    unitOfWork: storage.unitOfWork,
  };
  const webhookWorker = new WebhookWorker(deps, { logger, metrics: options.metrics });
  // Every security event into the audit log with the context of the request it happened in, and
  // its webhook deliveries in the same transaction; the worker is woken to deliver at once.
  const recorder = withRequestContext(createEventRecorder({ ...deps, auditLog: storage.auditLog, webhooks: storage.webhooks, changes: changes.feed, onDeliveries: () => webhookWorker.wake() }));
  deps.events = options.metrics ? countEvents(recorder, options.metrics) : recorder;
  const mailer = buildMailer(config, logger);
  // The worker's claims and marks on a pool of their own (PostgreSQL): not queued behind requests.
  outboxWorker = new OutboxWorker({ ...deps, outbox: storage.workerOutbox, mailer }, { logger });
  const purge = (options?: PurgeOptions) => purgeExpired({ ...deps, oidcArtifacts: storage.oidcArtifacts, consoleSignOuts: storage.consoleSignOuts }, options);
  const janitor = new Janitor({
    purge,
    intervalMs: config.purgeIntervalSeconds * 1000,
    logger,
    metrics: options.metrics,
  });
  const oidc = await buildOidc({ storage, deps, changes: changes.feed, encryption, masterKey: config.masterKey, baseUrl: config.baseUrl, logger });
  const afterAnswer = new AfterAnswer({ logger, metrics: options.metrics });
  const rateLimited = rateLimitedCounting(storage, logger);
  return {
    auth: createAuthService(deps, { changes: changes.feed }),
    changes: changes.feed,
    changeFeedKind: changes.kind,
    consoleSignOuts: storage.consoleSignOuts,
    oidc,
    rateLimiter: limits.limiter,
    ready: () => storage.probe(config.readyTimeoutMs),
    isEmpty: () => storage.projects.isEmpty(),
    outboxWorker,
    purge,
    janitor,
    outboxStats: () => storage.outbox.stats(),
    webhookStats: async () => {
      const now = new Date();
      const { counts, oldestDueAt } = await storage.webhooks.stats(now);
      return { counts, oldestDueSeconds: oldestDueAt ? (now.getTime() - oldestDueAt.getTime()) / 1000 : 0 };
    },
    webhookWorker,
    afterAnswer,
    rateLimitedTally: rateLimited.tally,
    rateLimitedFlusher: rateLimited.loop,
    close: async ({ workersMs = config.shutdownTimeoutMs } = {}) => {
      // One budget for all that still runs, side by side: the work of answered requests and the
      // workers' rounds (docs/operating.md#health-checks-and-shutdown). The workers start nothing
      // new once stopping; what is still in flight when the budget runs out is cut and retried.
      // (A timer of our own, not AbortSignal.timeout's unref'd one: it keeps the process up until then.)
      const expiry = new AbortController();
      const budget = expiry.signal;
      const timer = setTimeout(() => expiry.abort(), workersMs);
      try {
        // Past the budget, a job still running is logged as not done (its mail may not be queued).
        const answered = afterAnswer.idle({ budget });
        const outboxStopped = outboxWorker.stop();
        // A delivery to a receiver that never answers is cut when the budget runs out.
        const othersStopped = Promise.all([webhookWorker.stop({ budget }), janitor.stop(), rateLimited.loop.stop()]);
        // A send in flight to an SMTP server that does not answer would hold the stop for the
        // mailer's timeouts. Past the budget the mailer drops its connections: that send fails, and
        // its mail is retried.
        if (!(await settlesWithin(outboxStopped, budget)) && mailer.close) {
          logger.warn({ waitedMs: workersMs }, 'mail sends still in flight at shutdown; SMTP connections closed, those mails will be retried');
          await mailer.close({ force: true });
        }
        await Promise.all([answered, outboxStopped, othersStopped]);
      } finally {
        clearTimeout(timer);
      }
      // What the mailer holds open (SMTP's pooled connections), once the worker sends no more.
      await mailer.close?.();
      // The refusals counted since the last flush, before the database closes.
      await rateLimited.tally.flush().catch((error: unknown) => logger.warn({ err: error, lost: rateLimited.tally.unflushed }, 'rate-limited counts not stored at shutdown'));
      await changes.feed.close();
      await Promise.all([storage.close(), limits.close()]);
    },
  };
}

/** Whether `work` settles before `budget` aborts (without waiting longer than that for it). */
async function settlesWithin(work: Promise<unknown>, budget: AbortSignal): Promise<boolean> {
  if (budget.aborted) return false;
  let onAbort: (() => void) | undefined;
  const late = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    budget.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    if (onAbort) budget.removeEventListener('abort', onAbort);
  }
}

/** How often an instance adds its counted refusals to the database: at most this late in the overview of another instance. */
const RATE_LIMITED_FLUSH_MS = 15_000;

function rateLimitedCounting(storage: Pick<TypeormStorage, 'rateLimitStats'>, logger: Logger) {
  const tally = new RateLimitedTally({ store: storage.rateLimitStats, clock: systemClock });
  const loop = new RoundLoop(() => tally.flush(), {
    intervalMs: RATE_LIMITED_FLUSH_MS,
    onError: (error) => logger.warn({ err: error, pending: tally.unflushed }, 'rate-limited counts not stored; kept for the next flush'),
  });
  return { tally, loop };
}

/**
 * A master key other than the one the stored signing keys were sealed with would fail every
 * sign-in with a 500; the start fails instead, saying so. Nothing stored yet: nothing to check.
 */
async function assertMasterKeyOpens(storage: Pick<TypeormStorage, 'signingKeys'>, encryption: KeyEncryption): Promise<void> {
  const key = await storage.signingKeys.anyCurrent();
  if (!key) return;
  try {
    encryption.decrypt(key.encryptedPrivateKey, signingKeyContext(key));
  } catch {
    throw new StartupError(
      'SVC_MASTER_KEY does not open the signing keys stored in this database: it is not the key they were sealed with. ' +
        'Start with the master key this database was created with (docs/operating.md, "Backups"); without SVC_MASTER_KEY it is read from <SVC_DATA_DIR>/master-key.',
    );
  }
}

/** Where the configured database is, in the adapter's terms (also used by `svc migrate`). */
export function storageOptionsOf(config: Pick<RuntimeConfig, 'database' | 'databaseTimeouts' | 'databasePreparedStatements'>): OpenStorageOptions {
  const { database, databaseTimeouts: timeouts } = config;
  return database.kind === 'postgres'
    ? { databaseUrl: database.url, schema: database.schema, timeouts, preparedStatements: config.databasePreparedStatements }
    : { sqlitePath: database.path, timeouts };
}

/**
 * Opens the storage with migrations run at start (the default), or, when a pipeline migrates
 * first (SVC_MIGRATE_ON_START=false), refuses to serve on a schema older than this code.
 */
async function openCurrentStorage(config: RuntimeConfig): Promise<TypeormStorage> {
  const where = storageOptionsOf(config);
  if (!config.migrateOnStart) {
    const pending = await pendingMigrations(where);
    if (pending.length > 0) {
      throw new Error(`The database schema is behind this version: ${pending.length} migration(s) pending (${pending.join(', ')}). Run \`svc migrate\` first, or set SVC_MIGRATE_ON_START=true.`);
    }
  }
  return openStorage({ ...where, migrationsRun: config.migrateOnStart });
}

/** SMTP_URL -> SMTP; otherwise the embedded default, a file mailbox under the data folder (docs/operating.md#the-e-mail-outbox). */
function buildMailer(config: RuntimeConfig, logger: Logger): Mailer {
  if (config.smtpUrl) return new SmtpMailer(config.smtpUrl, { from: config.mailFrom });
  return new FileMailer(join(config.dataDir, 'mail'), logger, { from: config.mailFrom, showLinks: !config.production });
}
