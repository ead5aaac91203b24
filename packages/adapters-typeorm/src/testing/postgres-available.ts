import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { describeWithServer, probeFailure, reachableServerUrl, type TestServer } from '@svc/core/testing';

// Suites that need PostgreSQL read DATABASE_URL; when the server is absent they are
// skipped loudly, except with CI=true, where an absent server is a failure (a green CI run must
// mean the PostgreSQL suites really ran).

/** Where tests look for PostgreSQL when DATABASE_URL is unset. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

const CONNECT_TIMEOUT_MS = 3000;

/** DATABASE_URL if it names PostgreSQL, else the default test server. */
export function testDatabaseUrl(): string {
  const url = process.env.DATABASE_URL;
  return url && /^postgres(ql)?:\/\//i.test(url) ? url : DEFAULT_TEST_DATABASE_URL;
}

/** PostgreSQL at `url`, as the shared test-server helpers of `@svc/core/testing` check it. */
function postgresAt(url: string): TestServer {
  return {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    url,
    connect: async () => {
      const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
      try {
        await client.connect();
        await client.query('SELECT 1');
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    probeSync: () => probePostgresSync(url),
  };
}

/**
 * The URL of a reachable test PostgreSQL, or null (after a loud warning) when there is none.
 * With CI=true an unreachable server rejects instead of answering null.
 */
export async function postgresTestUrl(): Promise<string | null> {
  return reachableServerUrl(postgresAt(testDatabaseUrl()), 'postgresTestUrl');
}

/**
 * Synchronous reachability check (a short child process), because jest registers `describe`
 * blocks synchronously and cannot wait for a connection. Returns null when reachable, otherwise
 * the reason.
 */
export function probePostgresSync(url: string = testDatabaseUrl()): string | null {
  const script = `
    const { Client } = require(${JSON.stringify(require.resolve('pg'))});
    const client = new Client({ connectionString: process.env.SVC_PROBE_URL, connectionTimeoutMillis: ${CONNECT_TIMEOUT_MS} });
    client.connect().then(() => client.query('SELECT 1')).then(() => client.end()).then(
      () => process.exit(0),
      (error) => { process.stderr.write(String(error && error.message)); process.exit(1); });`;
  return probeFailure(spawnSync(process.execPath, ['-e', script], { env: { ...process.env, SVC_PROBE_URL: url }, encoding: 'utf8', timeout: CONNECT_TIMEOUT_MS + 2000 }));
}

/**
 * `describe` for suites that need PostgreSQL. Reachable: runs `body(url)`. Unreachable: fails
 * with CI=true, otherwise warns loudly and registers the suites with `describe.skip`.
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  describeWithServer(name, postgresAt(testDatabaseUrl()), body);
}

/** A fresh, uniquely named schema for one suite; `drop()` removes it with everything in it. */
export async function createTestSchema(url: string): Promise<{ schema: string; drop(): Promise<void> }> {
  const schema = `svc_test_${randomBytes(6).toString('hex')}`;
  await withClient(url, (client) => client.query(`CREATE SCHEMA "${schema}"`));
  return {
    schema,
    drop: () => withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
