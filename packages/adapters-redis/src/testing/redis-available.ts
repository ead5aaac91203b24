import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { describeWithServer, probeFailure, reachableServerUrl, type TestServer } from '@svc/core/testing';

// Suites that need Redis read REDIS_URL; when the server is absent they are skipped
// loudly, except with CI=true, where an absent server is a failure (a green CI run must mean the
// Redis suites really ran).

/** Where tests look for Redis when REDIS_URL is unset. */
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

const CONNECT_TIMEOUT_MS = 2000;

/** REDIS_URL if set, else the default test server. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL || DEFAULT_TEST_REDIS_URL;
}

/** Redis at `url`, as the shared test-server helpers of `@svc/core/testing` check it. */
function redisAt(url: string): TestServer {
  return {
    name: 'Redis',
    variable: 'REDIS_URL',
    url,
    connect: async () => {
      // One attempt, no retries: this answers "is it there?", it does not wait for it.
      const redis = new Redis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
      // The socket's error (ECONNREFUSED...) says more than connect()'s "Connection is closed".
      let socketError: Error | undefined;
      redis.on('error', (error: Error) => (socketError = error));
      try {
        await redis.connect();
        await redis.ping();
      } catch (error) {
        throw socketError ?? error;
      } finally {
        redis.disconnect();
      }
    },
    probeSync: () => probeRedisSync(url),
  };
}

/**
 * The URL of a reachable test Redis, or null (after a loud warning) when there is none.
 * With CI=true an unreachable server rejects instead of answering null.
 */
export async function redisTestUrl(): Promise<string | null> {
  return reachableServerUrl(redisAt(testRedisUrl()), 'redisTestUrl');
}

/**
 * Synchronous reachability check (a short child process), because jest registers `describe`
 * blocks synchronously and cannot wait for a connection. Returns null when reachable, otherwise
 * the reason.
 */
export function probeRedisSync(url: string = testRedisUrl()): string | null {
  const script = `
    const { Redis } = require(${JSON.stringify(require.resolve('ioredis'))});
    const redis = new Redis(process.env.SVC_PROBE_URL, { lazyConnect: true, connectTimeout: ${CONNECT_TIMEOUT_MS}, maxRetriesPerRequest: 0, retryStrategy: () => null });
    let socketError;
    redis.on('error', (error) => (socketError = error));
    redis.connect().then(() => redis.ping()).then(
      () => process.exit(0),
      (error) => { process.stderr.write(String((socketError || error).message)); process.exit(1); });`;
  return probeFailure(spawnSync(process.execPath, ['-e', script], { env: { ...process.env, SVC_PROBE_URL: url }, encoding: 'utf8', timeout: CONNECT_TIMEOUT_MS + 2000 }));
}

/**
 * `describe` for suites that need Redis. Reachable: runs `body(url)`. Unreachable: fails with
 * CI=true, otherwise warns loudly and registers the suites with `describe.skip`.
 */
export function describeWithRedis(name: string, body: (url: string) => void): void {
  describeWithServer(name, redisAt(testRedisUrl()), body);
}
