import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/composition/config';
import { storageOptionsOf } from '../src/composition/container';
import { RATE_LIMIT_NAMES } from '../src/http/middleware/rate-limit-rules';

const HEX_KEY = 'ab'.repeat(32);
const TOKEN = 't'.repeat(40);

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has working defaults with nothing set (the embedded default)', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      production: false,
      port: 3000,
      baseUrl: 'http://localhost:3000',
      database: { kind: 'sqlite', path: resolve('data', 'svc.sqlite') },
      redisUrl: null,
      smtpUrl: null,
      adminToken: null,
      masterKey: null,
      bcryptCost: 12,
      planUserLimits: { FREE: 1000, SOLO: 10000, PRO: null },
      trustProxy: false,
      logLevel: 'info',
      dataDir: resolve('data'),
      purgeIntervalSeconds: 3600,
      databaseTimeouts: { connectMs: 5000, acquireMs: 3000, statementMs: 5000, lockMs: 3000, keepAliveMs: 10_000, idleMs: 300_000 },
      databasePreparedStatements: true,
      readyTimeoutMs: 2000,
      redisTimeoutMs: 100,
      shutdownTimeoutMs: 10_000,
    });
    expect(config.rateLimits.login).toEqual({ limit: 10, windowSeconds: 900, whenStoreDown: 'local-strict' });
  });

  it('reads the timeouts', () => {
    const config = loadConfig({
      SVC_DB_CONNECT_TIMEOUT_MS: '1000',
      SVC_DB_ACQUIRE_TIMEOUT_MS: '0',
      SVC_DB_STATEMENT_TIMEOUT_MS: '2500',
      SVC_DB_LOCK_TIMEOUT_MS: '750',
      SVC_DB_KEEPALIVE_MS: '30000',
      SVC_DB_IDLE_TIMEOUT_MS: '0',
      SVC_READY_TIMEOUT_MS: '500',
      SVC_REDIS_TIMEOUT_MS: '50',
      SVC_SHUTDOWN_TIMEOUT_MS: '20000',
      SVC_DB_PREPARED_STATEMENTS: 'false',
    });
    expect(config).toMatchObject({
      databaseTimeouts: { connectMs: 1000, acquireMs: 0, statementMs: 2500, lockMs: 750, keepAliveMs: 30_000, idleMs: 0 },
      databasePreparedStatements: false,
      readyTimeoutMs: 500,
      redisTimeoutMs: 50,
      shutdownTimeoutMs: 20_000,
    });
  });

  it('hands the storage its PostgreSQL statements setting', () => {
    const postgres = { DATABASE_URL: 'postgres://u:p@db:5432/svc' };
    expect(storageOptionsOf(loadConfig(postgres)).preparedStatements).toBe(true);
    expect(storageOptionsOf(loadConfig({ ...postgres, SVC_DB_PREPARED_STATEMENTS: 'false' })).preparedStatements).toBe(false);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      SVC_BASE_URL: 'https://auth.example.com/',
      DATABASE_URL: 'postgres://u:p@db:5432/svc',
      REDIS_URL: 'redis://cache:6379',
      SMTP_URL: 'smtp://mail:25',
      SVC_ADMIN_TOKEN: TOKEN,
      SVC_MASTER_KEY: HEX_KEY,
      SVC_BCRYPT_COST: '10',
      SVC_PLAN_USER_LIMITS: '{"FREE":5,"PRO":null}',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      LOG_LEVEL: 'debug',
      SVC_DATA_DIR: '/var/lib/svc',
      SVC_RATE_LIMITS: '{"login":{"limit":20}}',
      SVC_PURGE_INTERVAL_SECONDS: '600',
    });
    expect(config).toMatchObject({
      port: 8080,
      baseUrl: 'https://auth.example.com',
      database: { kind: 'postgres', url: 'postgres://u:p@db:5432/svc' },
      redisUrl: 'redis://cache:6379',
      smtpUrl: 'smtp://mail:25',
      adminToken: TOKEN,
      bcryptCost: 10,
      planUserLimits: { FREE: 5, SOLO: 10000, PRO: null },
      trustProxy: ['loopback', '10.0.0.0/8'],
      logLevel: 'debug',
      dataDir: '/var/lib/svc',
      purgeIntervalSeconds: 600,
    });
    expect(config.masterKey).toEqual(Buffer.alloc(32, 0xab));
    expect(config.rateLimits.login).toEqual({ limit: 20, windowSeconds: 900, whenStoreDown: 'local-strict' });
  });

  it.each([
    ['true', true],
    ['false', false],
    ['2', 2],
  ])('TRUST_PROXY=%s', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('accepts the master key as base64 and base64url', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    expect(loadConfig({ SVC_MASTER_KEY: bytes.toString('base64') }).masterKey).toEqual(bytes);
    expect(loadConfig({ SVC_MASTER_KEY: bytes.toString('base64url') }).masterKey).toEqual(bytes);
  });

  it('SVC_PURGE_INTERVAL_SECONDS=0 turns the janitor off', () => {
    expect(loadConfig({ SVC_PURGE_INTERVAL_SECONDS: '0' }).purgeIntervalSeconds).toBe(0);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '  ' }).port).toBe(3000);
  });

  it.each([
    ['PORT', 'http', 'PORT must be a port number from 0 to 65535.'],
    ['PORT', '70000', 'PORT must be a port number from 0 to 65535.'],
    ['SVC_BASE_URL', 'auth.example.com', 'SVC_BASE_URL must be an http:// or https:// URL.'],
    ['SVC_BASE_URL', 'https://auth.example.com/?x=1', 'SVC_BASE_URL must not have a query, fragment or credentials.'],
    ['DATABASE_URL', 'mysql://db/svc', 'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded SQLite database).'],
    ['REDIS_URL', 'http://cache', 'REDIS_URL must be a redis:// or rediss:// URL.'],
    ['SMTP_URL', 'mail.example.com', 'SMTP_URL must be an smtp:// or smtps:// URL.'],
    ['SVC_ADMIN_TOKEN', 'short', 'SVC_ADMIN_TOKEN must be at least 32 characters long.'],
    ['SVC_MASTER_KEY', 'abcd', 'SVC_MASTER_KEY must be 32 bytes, as 64 hex digits or base64 (e.g. the output of `openssl rand -hex 32`).'],
    ['SVC_BCRYPT_COST', '3', 'SVC_BCRYPT_COST must be an integer from 4 to 15.'],
    ['SVC_BCRYPT_COST', '16', 'SVC_BCRYPT_COST must be an integer from 4 to 15.'],
    ['SVC_PURGE_INTERVAL_SECONDS', '-1', 'SVC_PURGE_INTERVAL_SECONDS must be an integer from 0 to 604800.'],
    ['SVC_PURGE_INTERVAL_SECONDS', '1.5', 'SVC_PURGE_INTERVAL_SECONDS must be an integer from 0 to 604800.'],
    ['SVC_PURGE_INTERVAL_SECONDS', '604801', 'SVC_PURGE_INTERVAL_SECONDS must be an integer from 0 to 604800.'],
    ['SVC_PLAN_USER_LIMITS', '{"FREE":-1}', 'SVC_PLAN_USER_LIMITS must be a JSON object like {"FREE":1000,"SOLO":10000,"PRO":null} (non-negative integers or null).'],
    ['SVC_PLAN_USER_LIMITS', '{"GOLD":1}', 'SVC_PLAN_USER_LIMITS has an unknown plan "GOLD" (plans: FREE, SOLO, PRO).'],
    ['SVC_PLAN_USER_LIMITS', 'not json', 'SVC_PLAN_USER_LIMITS must be a JSON object like {"FREE":1000,"SOLO":10000,"PRO":null} (non-negative integers or null).'],
    ['TRUST_PROXY', 'yes', 'TRUST_PROXY must be true, false, a hop count, or a comma list of IPs, CIDR subnets and loopback/linklocal/uniquelocal ("yes" is none of these).'],
    ['TRUST_PROXY', '10.0.0.0/33', 'TRUST_PROXY must be true, false, a hop count, or a comma list of IPs, CIDR subnets and loopback/linklocal/uniquelocal ("10.0.0.0/33" is none of these).'],
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.'],
    ['SVC_RATE_LIMITS', '[]', 'SVC_RATE_LIMITS must be a JSON object like {"login":{"limit":20,"windowSeconds":900}}.'],
    ['SVC_RATE_LIMITS', '{"logon":{"limit":1}}', `SVC_RATE_LIMITS has an unknown limit "logon" (limits: ${RATE_LIMIT_NAMES.join(', ')}).`],
    ['SVC_RATE_LIMITS', '{"login":{"limit":0}}', 'SVC_RATE_LIMITS has "login.limit" that is not a positive integer.'],
    ['SVC_RATE_LIMITS', '{"login":{"max":5}}', 'SVC_RATE_LIMITS has an unknown field "login.max" (fields: limit, windowSeconds).'],
    ['SVC_DB_STATEMENT_TIMEOUT_MS', '5s', 'SVC_DB_STATEMENT_TIMEOUT_MS must be an integer from 0 to 600000.'],
    ['SVC_DB_LOCK_TIMEOUT_MS', '-1', 'SVC_DB_LOCK_TIMEOUT_MS must be an integer from 0 to 600000.'],
    ['SVC_READY_TIMEOUT_MS', '50', 'SVC_READY_TIMEOUT_MS must be an integer from 100 to 60000.'],
    ['SVC_REDIS_TIMEOUT_MS', '0', 'SVC_REDIS_TIMEOUT_MS must be an integer from 10 to 10000.'],
    ['SVC_SHUTDOWN_TIMEOUT_MS', '100', 'SVC_SHUTDOWN_TIMEOUT_MS must be an integer from 1000 to 600000.'],
  ])('%s=%s -> %s', (name, value, message) => {
    expect(problemsOf({ [name]: value })).toEqual([message]);
  });

  it('lists every problem at once in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'x', LOG_LEVEL: 'loud', SVC_BCRYPT_COST: '99' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toHaveLength(3);
    expect((error as ConfigError).message).toBe(
      'Invalid configuration:\n  - PORT must be a port number from 0 to 65535.\n  - SVC_BCRYPT_COST must be an integer from 4 to 15.\n  - LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.',
    );
  });

  it('requires SVC_ADMIN_TOKEN and SVC_MASTER_KEY when NODE_ENV=production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual(['SVC_ADMIN_TOKEN is required when NODE_ENV=production.', 'SVC_MASTER_KEY is required when NODE_ENV=production.']);
    expect(problemsOf({ NODE_ENV: 'production', SVC_ADMIN_TOKEN: TOKEN })).toEqual(['SVC_MASTER_KEY is required when NODE_ENV=production.']);
    expect(loadConfig({ NODE_ENV: 'production', SVC_ADMIN_TOKEN: TOKEN, SVC_MASTER_KEY: HEX_KEY }).production).toBe(true);
  });
});
