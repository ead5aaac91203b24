import { resolve } from 'node:path';
import type { DatabaseTimeouts } from '@svc/adapters-typeorm';
import { ConfigError, loadConfig, type Config, type DatabaseConfig } from './config';

/**
 * The configuration of createSvcServer: the fields of {@link Config} (what `loadConfig` reads from
 * the environment), each optional with the same default as its variable. `masterKey` may also be
 * given as text (hex or base64), `databaseTimeouts` in part, and `database` as an SQLite file of
 * your choice (`{ kind: 'sqlite', path }`) besides the variables' PostgreSQL form.
 */
export type SvcServerConfig = Partial<Omit<Config, 'masterKey' | 'databaseTimeouts'>> & {
  masterKey?: Buffer | string | null;
  databaseTimeouts?: Partial<DatabaseTimeouts>;
};

/** Each field's variable, and how its value is written as that variable's text. */
const FIELDS: Record<string, [variable: string, text?: (value: never) => string]> = {
  production: ['NODE_ENV', (value: boolean) => (value ? 'production' : 'development')],
  port: ['PORT'],
  host: ['SVC_HOST'],
  baseUrl: ['SVC_BASE_URL'],
  migrateOnStart: ['SVC_MIGRATE_ON_START'],
  webhooksAllowPrivate: ['SVC_WEBHOOKS_ALLOW_PRIVATE'],
  redisUrl: ['REDIS_URL'],
  redisPrefix: ['SVC_REDIS_PREFIX'],
  smtpUrl: ['SMTP_URL'],
  mailFrom: ['SMTP_FROM'],
  adminToken: ['SVC_ADMIN_TOKEN'],
  metricsToken: ['SVC_METRICS_TOKEN'],
  masterKey: ['SVC_MASTER_KEY', (value: Buffer | string) => (Buffer.isBuffer(value) ? value.toString('hex') : String(value))],
  bcryptCost: ['SVC_BCRYPT_COST'],
  planUserLimits: ['SVC_PLAN_USER_LIMITS', (value: object) => JSON.stringify(value)],
  trustProxy: ['TRUST_PROXY', (value: unknown) => (Array.isArray(value) ? value.join(',') : String(value))],
  logLevel: ['LOG_LEVEL'],
  dataDir: ['SVC_DATA_DIR'],
  rateLimits: ['SVC_RATE_LIMITS', (value: object) => JSON.stringify(value, (key, v) => (key === 'whenStoreDown' ? undefined : v))],
  purgeIntervalSeconds: ['SVC_PURGE_INTERVAL_SECONDS'],
  databasePreparedStatements: ['SVC_DB_PREPARED_STATEMENTS'],
  readyTimeoutMs: ['SVC_READY_TIMEOUT_MS'],
  redisTimeoutMs: ['SVC_REDIS_TIMEOUT_MS'],
  shutdownTimeoutMs: ['SVC_SHUTDOWN_TIMEOUT_MS'],
  releaseMemoryAtRest: ['SVC_RELEASE_MEMORY_AT_REST'],
  refreshTokenIssueTime: ['SVC_REFRESH_TOKEN_ISSUE_TIME'],
};

const TIMEOUT_VARIABLES: Record<keyof DatabaseTimeouts, string> = {
  connectMs: 'SVC_DB_CONNECT_TIMEOUT_MS',
  acquireMs: 'SVC_DB_ACQUIRE_TIMEOUT_MS',
  statementMs: 'SVC_DB_STATEMENT_TIMEOUT_MS',
  lockMs: 'SVC_DB_LOCK_TIMEOUT_MS',
  keepAliveMs: 'SVC_DB_KEEPALIVE_MS',
  idleMs: 'SVC_DB_IDLE_TIMEOUT_MS',
};

/** Problems name the field, not the variable it stands for. */
const NAMES: Record<string, string> = {
  ...Object.fromEntries(Object.entries(FIELDS).map(([field, [variable]]) => [variable, field])),
  ...Object.fromEntries(Object.entries(TIMEOUT_VARIABLES).map(([field, variable]) => [variable, `databaseTimeouts.${field}`])),
  DATABASE_URL: 'database.url',
  SVC_DATABASE_SCHEMA: 'database.schema',
};

/**
 * Validates a config object with loadConfig's own rules (every field written as its variable's
 * text and read back, so the two can never disagree) and answers the full Config. Every problem
 * at once, as a ConfigError naming the fields. Reads nothing from the process environment.
 */
export function configFromObject(input: SvcServerConfig = {}): Config {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  for (const [field, value] of Object.entries(input)) {
    if (value === undefined || value === null || field === 'database' || field === 'databaseTimeouts') continue;
    const entry = FIELDS[field];
    if (!entry) problems.push(`${field} is not a configuration field.`);
    else if (field === 'production' && typeof value !== 'boolean') problems.push('production must be true or false.');
    else env[entry[0]] = entry[1] ? entry[1](value as never) : String(value);
  }
  for (const [field, value] of Object.entries(input.databaseTimeouts ?? {})) {
    const variable = TIMEOUT_VARIABLES[field as keyof DatabaseTimeouts];
    if (!variable) problems.push(`databaseTimeouts.${field} is not a configuration field.`);
    else if (value !== undefined) env[variable] = String(value);
  }
  const sqlitePath = databaseInto(input.database, env, problems);
  let config: Config;
  try {
    config = loadConfig(env, { names: NAMES });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError([...problems, ...error.problems]);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return sqlitePath === null ? config : { ...config, database: { kind: 'sqlite', path: sqlitePath } };
}

/** The PostgreSQL form goes through the variables; an SQLite path is answered to be set afterwards. */
function databaseInto(database: DatabaseConfig | undefined, env: Record<string, string>, problems: string[]): string | null {
  if (database === undefined) return null;
  if (database?.kind === 'postgres') {
    env.DATABASE_URL = String(database.url);
    if (database.schema !== undefined) env.SVC_DATABASE_SCHEMA = String(database.schema);
    return null;
  }
  if (database?.kind === 'sqlite' && typeof database.path === 'string' && database.path.trim() !== '') {
    return database.path === ':memory:' ? database.path : resolve(database.path);
  }
  problems.push('database must be { kind: "postgres", url, schema? } or { kind: "sqlite", path }.');
  return null;
}
