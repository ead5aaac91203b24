import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../src/composition/config';
import { configFromObject } from '../src/composition/config-object';

// createSvcServer's config object: the fields of loadConfig's result, validated by loadConfig's
// own rules, with problems that name the fields.

function problemsOf(input: Parameters<typeof configFromObject>[0]): string[] {
  try {
    configFromObject(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configFromObject', () => {
  it('answers the defaults of the variables for an empty object, reading nothing from process.env', () => {
    process.env.SVC_BCRYPT_COST = '7';
    try {
      expect(configFromObject({})).toEqual(loadConfig({}));
    } finally {
      delete process.env.SVC_BCRYPT_COST;
    }
  });

  it("takes loadConfig's own result back unchanged", () => {
    const config = loadConfig({
      PORT: '8080',
      SVC_BASE_URL: 'https://app.example.com/auth',
      DATABASE_URL: 'postgres://u:p@db:5432/svc',
      SVC_DATABASE_SCHEMA: 'auth',
      REDIS_URL: 'redis://cache:6379',
      SVC_ADMIN_TOKEN: 'a'.repeat(40),
      SVC_MASTER_KEY: 'ab'.repeat(32),
      SVC_PLAN_USER_LIMITS: '{"FREE":5}',
      TRUST_PROXY: 'loopback, 10.0.0.0/8',
      SVC_RATE_LIMITS: '{"login":{"limit":20}}',
      SVC_DB_STATEMENT_TIMEOUT_MS: '2500',
      NODE_ENV: 'production',
    });
    expect(configFromObject(config)).toEqual(config);
  });

  it('takes fields in their own types: a Buffer or text master key, partial timeouts, an SQLite file', () => {
    const config = configFromObject({
      masterKey: Buffer.alloc(32, 1),
      databaseTimeouts: { lockMs: 250 },
      database: { kind: 'sqlite', path: 'here/auth.sqlite' },
      trustProxy: ['loopback'],
    });
    expect(config.masterKey).toEqual(Buffer.alloc(32, 1));
    expect(config.databaseTimeouts).toEqual({ connectMs: 5000, acquireMs: 3000, statementMs: 5000, lockMs: 250, keepAliveMs: 10_000, idleMs: 300_000 });
    expect(config.database).toEqual({ kind: 'sqlite', path: resolve('here/auth.sqlite') });
    expect(config.trustProxy).toEqual(['loopback']);
    expect(configFromObject({ masterKey: '01'.repeat(32) }).masterKey).toEqual(Buffer.alloc(32, 1));
  });

  it('reports every problem at once, naming the fields', () => {
    expect(
      problemsOf({
        port: 70000,
        bcryptCost: 3.5,
        databaseTimeouts: { statementMs: -1 },
        database: { kind: 'postgres', url: 'mysql://db' },
        production: true,
        colour: 'blue',
      } as never),
    ).toEqual([
      'colour is not a configuration field.',
      'port must be a port number from 0 to 65535.',
      'database.url must be a postgres:// URL (leave it unset for the embedded SQLite database).',
      'bcryptCost must be an integer from 4 to 15.',
      'databaseTimeouts.statementMs must be an integer from 0 to 600000.',
      'adminToken is required when production is true.',
      'masterKey is required when production is true.',
    ]);
  });
});
