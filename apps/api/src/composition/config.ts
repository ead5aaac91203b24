import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { decodeMasterKey } from '@svc/adapters-crypto';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '@svc/adapters-typeorm';
import { DEFAULT_PLAN_USER_LIMITS, isPlan, PLANS, type PlanUserLimits, type RateLimitRule } from '@svc/core';
import type { TrustProxy } from '../http/app-deps';
import { DEFAULT_RATE_LIMITS, RATE_LIMIT_NAMES, type RateLimitName, type RateLimitRules } from '../http/middleware/rate-limit-rules';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `schema`: a PostgreSQL schema to use instead of the search_path (SVC_DATABASE_SCHEMA). */
export type DatabaseConfig = { kind: 'postgres'; url: string; schema?: string } | { kind: 'sqlite'; path: string };

/** Validated configuration (docs/operating.md#configuration). Secrets left unset are null: see dev-secrets.ts. */
export interface Config {
  production: boolean;
  port: number;
  /** The address to listen on (SVC_HOST); null = every address. */
  host: string | null;
  /** Public base URL without a trailing slash; the `iss` of access tokens. */
  baseUrl: string;
  database: DatabaseConfig;
  /** Run pending migrations at start (SVC_MIGRATE_ON_START, default true); false: refuse to start while any is pending. */
  migrateOnStart: boolean;
  /**
   * Let webhooks reach loopback, private and link-local addresses (SVC_WEBHOOKS_ALLOW_PRIVATE,
   * default false): only for receivers on the same host or network, e.g. in tests.
   */
  webhooksAllowPrivate: boolean;
  /** Redis for rate limits shared by every instance; null = in-memory, per process. */
  redisUrl: string | null;
  /** Prefix of every Redis key this service writes (several deployments may share one Redis). */
  redisPrefix: string;
  /** SMTP server for the outbox worker; null = the file mailbox under `<dataDir>/mail`. */
  smtpUrl: string | null;
  /** `From:` of every mail (SMTP_FROM); default `svc <no-reply@<host of SVC_BASE_URL>>`. */
  mailFrom: string;
  adminToken: string | null;
  /** Scrape-only bearer token for GET /metrics; null = the admin token only. */
  metricsToken: string | null;
  /** 32-byte key that encrypts signing keys at rest. */
  masterKey: Buffer | null;
  bcryptCost: number;
  planUserLimits: PlanUserLimits;
  trustProxy: TrustProxy;
  logLevel: LogLevel;
  /** Absolute path of the data folder (SQLite file, dev secrets, demo keys). */
  dataDir: string;
  rateLimits: RateLimitRules;
  /** Seconds between the janitor's purges of expired rows (SVC_PURGE_INTERVAL_SECONDS, default 3600); 0 = off. */
  purgeIntervalSeconds: number;
  /** Bounds on waiting for the database (SVC_DB_*_TIMEOUT_MS, SVC_DB_KEEPALIVE_MS); past them a request is 503. SVC_DB_IDLE_TIMEOUT_MS: how long an unused connection stays open. */
  databaseTimeouts: DatabaseTimeouts;
  /**
   * PostgreSQL: prepare the busiest statements on each connection (SVC_DB_PREPARED_STATEMENTS,
   * default true); false behind PgBouncer in transaction mode before 1.21 or without
   * `max_prepared_statements`.
   */
  databasePreparedStatements: boolean;
  /** How long GET /readyz gives its probe of the database (SVC_READY_TIMEOUT_MS, default 2000). */
  readyTimeoutMs: number;
  /** How long a rate-limited request waits for Redis before the per-process fallback decides (SVC_REDIS_TIMEOUT_MS, default 100). */
  redisTimeoutMs: number;
  /** How long a stop may take to drain before the process exits anyway, with 1 (SVC_SHUTDOWN_TIMEOUT_MS, default 10000). */
  shutdownTimeoutMs: number;
  /**
   * Give the memory of a burst back to the system once the server falls quiet (SVC_RELEASE_MEMORY_AT_REST,
   * default true): while the server listens on its own port (rest-collector.ts).
   */
  releaseMemoryAtRest: boolean;
  /**
   * Issue refresh tokens that carry their issue time (SVC_REFRESH_TOKEN_ISSUE_TIME, off by
   * default): stored in issue order, they keep the token index's writes at one end. A release
   * before this form refuses such tokens, so it is turned on once none serves the database.
   */
  refreshTokenIssueTime: boolean;
}

/** Every bad variable at once, one line each, so an operator fixes them in one go. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * The service cannot start for a reason the operator fixes outside the code (the port is taken,
 * the master key does not open the data): the entry points print the message alone and exit 1.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Ten minutes: any database bound beyond that is no bound a request could wait for. */
const MAX_DATABASE_TIMEOUT_MS = 600_000;

/** A week: expired rows waiting longer than that would only make the next purge long. */
const MAX_PURGE_INTERVAL_SECONDS = 7 * 24 * 60 * 60;

/** Admin tokens shorter than this are refused: the token is the key to every project. */
const MIN_ADMIN_TOKEN_LENGTH = 32;

type Env = Record<string, string | undefined>;

export interface LoadConfigOptions {
  /** How problems name each variable, when the values came from elsewhere (createSvcServer names config fields). */
  names?: Readonly<Record<string, string>>;
}

/**
 * Reads and validates the environment (docs/operating.md#configuration). Pure: no file I/O (generated dev secrets are
 * dev-secrets.ts's job). Empty values count as unset, as compose files often pass `VAR=`.
 */
export function loadConfig(env: Env = process.env, options: LoadConfigOptions = {}): Config {
  const problems: string[] = [];
  const nameOf = (variable: string) => options.names?.[variable] ?? variable;
  const read = (name: string) => (env[name]?.trim() ? env[name]!.trim() : undefined);
  const check = <T>(name: string, parse: (raw: string) => T, fallback: T): T => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    try {
      return parse(raw);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      problems.push(`${nameOf(name)} ${error.message}`);
      return fallback;
    }
  };

  const production = env.NODE_ENV === 'production';
  const port = check('PORT', parsePort, 3000);
  const dataDir = resolve(read('SVC_DATA_DIR') ?? './data');
  const baseUrl = check('SVC_BASE_URL', parseBaseUrl, `http://localhost:${port}`);
  const databaseUrl = check('DATABASE_URL', urlOf(['postgres:', 'postgresql:'], 'a postgres:// URL (leave it unset for the embedded SQLite database)'), null);
  const schema = check('SVC_DATABASE_SCHEMA', parseSchema, null);
  if (schema !== null && !databaseUrl) problems.push(`${nameOf('SVC_DATABASE_SCHEMA')} needs ${nameOf('DATABASE_URL')} (a PostgreSQL database).`);
  const config: Config = {
    production,
    port,
    host: check('SVC_HOST', parseHost, null),
    baseUrl,
    database: databaseUrl ? { kind: 'postgres', url: databaseUrl, ...(schema !== null ? { schema } : {}) } : { kind: 'sqlite', path: resolve(dataDir, 'svc.sqlite') },
    migrateOnStart: check('SVC_MIGRATE_ON_START', parseBoolean, true),
    webhooksAllowPrivate: check('SVC_WEBHOOKS_ALLOW_PRIVATE', parseBoolean, false),
    redisUrl: check('REDIS_URL', urlOf(['redis:', 'rediss:'], 'a redis:// or rediss:// URL'), null),
    redisPrefix: check('SVC_REDIS_PREFIX', parseRedisPrefix, 'svc:'),
    smtpUrl: check('SMTP_URL', urlOf(['smtp:', 'smtps:'], 'an smtp:// or smtps:// URL'), null),
    mailFrom: check('SMTP_FROM', parseMailFrom, `svc <no-reply@${new URL(baseUrl).hostname}>`),
    adminToken: check('SVC_ADMIN_TOKEN', parseAdminToken, null),
    metricsToken: check('SVC_METRICS_TOKEN', parseAdminToken, null),
    masterKey: check('SVC_MASTER_KEY', parseMasterKey, null),
    bcryptCost: check('SVC_BCRYPT_COST', intIn(4, 15), 12),
    planUserLimits: check('SVC_PLAN_USER_LIMITS', parsePlanLimits, { ...DEFAULT_PLAN_USER_LIMITS }),
    trustProxy: check('TRUST_PROXY', parseTrustProxy, false),
    logLevel: check('LOG_LEVEL', oneOf(LOG_LEVELS), 'info'),
    dataDir,
    rateLimits: check('SVC_RATE_LIMITS', parseRateLimits, structuredClone(DEFAULT_RATE_LIMITS)),
    purgeIntervalSeconds: check('SVC_PURGE_INTERVAL_SECONDS', intIn(0, MAX_PURGE_INTERVAL_SECONDS), 3600),
    databaseTimeouts: {
      connectMs: check('SVC_DB_CONNECT_TIMEOUT_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.connectMs),
      acquireMs: check('SVC_DB_ACQUIRE_TIMEOUT_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.acquireMs),
      statementMs: check('SVC_DB_STATEMENT_TIMEOUT_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.statementMs),
      lockMs: check('SVC_DB_LOCK_TIMEOUT_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.lockMs),
      keepAliveMs: check('SVC_DB_KEEPALIVE_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.keepAliveMs),
      idleMs: check('SVC_DB_IDLE_TIMEOUT_MS', intIn(0, MAX_DATABASE_TIMEOUT_MS), DEFAULT_DATABASE_TIMEOUTS.idleMs),
    },
    databasePreparedStatements: check('SVC_DB_PREPARED_STATEMENTS', parseBoolean, true),
    readyTimeoutMs: check('SVC_READY_TIMEOUT_MS', intIn(100, 60_000), 2000),
    redisTimeoutMs: check('SVC_REDIS_TIMEOUT_MS', intIn(10, 10_000), 100),
    shutdownTimeoutMs: check('SVC_SHUTDOWN_TIMEOUT_MS', intIn(1000, 600_000), 10_000),
    releaseMemoryAtRest: check('SVC_RELEASE_MEMORY_AT_REST', parseBoolean, true),
    refreshTokenIssueTime: check('SVC_REFRESH_TOKEN_ISSUE_TIME', parseBoolean, false),
  };
  // In production a generated secret on a container's disk would be lost or shared by accident.
  const inProduction = nameOf('NODE_ENV') === 'NODE_ENV' ? 'NODE_ENV=production' : `${nameOf('NODE_ENV')} is true`;
  if (production && !read('SVC_ADMIN_TOKEN')) problems.push(`${nameOf('SVC_ADMIN_TOKEN')} is required when ${inProduction}.`);
  if (production && !read('SVC_MASTER_KEY')) problems.push(`${nameOf('SVC_MASTER_KEY')} is required when ${inProduction}.`);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** Thrown by a parser; its text completes "<VARIABLE> ..." in the ConfigError. */
class Invalid extends Error {}

function invalid(text: string): never {
  throw new Invalid(text);
}

function parseHost(raw: string): string {
  return isIP(raw) !== 0 || /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i.test(raw)
    ? raw
    : invalid('must be an IP address or a host name (e.g. 127.0.0.1, ::1, localhost).');
}

function parsePort(raw: string): number {
  return /^\d+$/.test(raw) && Number(raw) <= 65535 ? Number(raw) : invalid('must be a port number from 0 to 65535.');
}

function intIn(min: number, max: number) {
  return (raw: string): number => (/^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max ? Number(raw) : invalid(`must be an integer from ${min} to ${max}.`));
}

function parseBoolean(raw: string): boolean {
  return raw === 'true' || raw === 'false' ? raw === 'true' : invalid('must be true or false.');
}

function oneOf<T extends string>(values: readonly T[]) {
  return (raw: string): T => ((values as readonly string[]).includes(raw) ? (raw as T) : invalid(`must be one of ${values.join(', ')}.`));
}

function parseBaseUrl(raw: string): string {
  const url = safeUrl(raw);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) invalid('must be an http:// or https:// URL.');
  if (url.search || url.hash || url.username || url.password) invalid('must not have a query, fragment or credentials.');
  return url.href.replace(/\/+$/, '');
}

function urlOf(protocols: string[], what: string) {
  return (raw: string): string | null => (protocols.includes(safeUrl(raw)?.protocol ?? '') ? raw : invalid(`must be ${what}.`));
}

/** `Name <address>` or a bare address; one line (it becomes a header). */
function parseMailFrom(raw: string): string {
  const address = /<([^<>\s]+@[^<>\s]+)>$/.exec(raw)?.[1] ?? raw;
  if (/[\r\n]/.test(raw) || !/^[^\s@<>]+@[^\s@<>]+$/.test(address)) invalid('must be an address like "My app <no-reply@example.com>" or no-reply@example.com.');
  return raw;
}

/** Why `raw` cannot be an admin token, or null when it can. */
export function adminTokenProblem(raw: string): string | null {
  if (raw.length < MIN_ADMIN_TOKEN_LENGTH) return `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long.`;
  return /^[\x21-\x7e]+$/.test(raw) ? null : 'must be printable ASCII without spaces.';
}

function parseAdminToken(raw: string): string {
  const problem = adminTokenProblem(raw);
  return problem === null ? raw : invalid(problem);
}

/** The names openStorage accepts: they go into DDL and into each connection's search_path. */
function parseSchema(raw: string): string {
  return /^[a-z_][a-z0-9_]{0,62}$/.test(raw) ? raw : invalid('must be a lower-case PostgreSQL name (letters, digits, _; at most 63).');
}

function parseRedisPrefix(raw: string): string {
  return /^[\x21-\x7e]{1,64}$/.test(raw) ? raw : invalid('must be 1 to 64 printable characters without spaces, e.g. "svc:" or "svc:staging:".');
}

function parseMasterKey(raw: string): Buffer {
  return decodeMasterKey(raw) ?? invalid('must be 32 bytes, as 64 hex digits or base64 (e.g. the output of `openssl rand -hex 32`).');
}

function parsePlanLimits(raw: string): PlanUserLimits {
  const shape = 'must be a JSON object like {"FREE":1000,"SOLO":10000,"PRO":null} (non-negative integers or null).';
  const limits: PlanUserLimits = { ...DEFAULT_PLAN_USER_LIMITS };
  for (const [plan, limit] of Object.entries(parseJsonObject(raw) ?? invalid(shape))) {
    if (!isPlan(plan)) invalid(`has an unknown plan "${plan}" (plans: ${PLANS.join(', ')}).`);
    if (limit !== null && !(Number.isInteger(limit) && (limit as number) >= 0)) invalid(shape);
    limits[plan as keyof PlanUserLimits] = limit as number | null;
  }
  return limits;
}

const TRUST_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** What Express's `trust proxy` accepts: true/false, a hop count, or a list of names, IPs and CIDRs. */
function parseTrustProxy(raw: string): TrustProxy {
  if (raw === 'true' || raw === 'false') return raw === 'true';
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !TRUST_NAMES.includes(entry) && !isAddressOrSubnet(entry));
  if (bad !== undefined || entries.length === 0) {
    invalid(`must be true, false, a hop count, or a comma list of IPs, CIDR subnets and ${TRUST_NAMES.join('/')} ("${bad ?? raw}" is none of these).`);
  }
  return entries;
}

function isAddressOrSubnet(entry: string): boolean {
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !isIP(address)) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (isIP(address) === 4 ? 32 : 128));
}

function parseRateLimits(raw: string): RateLimitRules {
  const shape = 'must be a JSON object like {"login":{"limit":20,"windowSeconds":900}}.';
  const rules = structuredClone(DEFAULT_RATE_LIMITS);
  for (const [name, override] of Object.entries(parseJsonObject(raw) ?? invalid(shape))) {
    if (!(RATE_LIMIT_NAMES as readonly string[]).includes(name)) invalid(`has an unknown limit "${name}" (limits: ${RATE_LIMIT_NAMES.join(', ')}).`);
    if (typeof override !== 'object' || override === null || Array.isArray(override)) invalid(shape);
    for (const [field, value] of Object.entries(override as object)) {
      if (field !== 'limit' && field !== 'windowSeconds') invalid(`has an unknown field "${name}.${field}" (fields: limit, windowSeconds).`);
      if (!Number.isInteger(value) || (value as number) < 1) invalid(`has "${name}.${field}" that is not a positive integer.`);
      rules[name as RateLimitName][field as keyof RateLimitRule] = value as number;
    }
  }
  return rules;
}

function parseJsonObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function safeUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}
