import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { describeWhenAvailable } from '@svc/core/testing';

// DESIGN §13: suites that need Redis read REDIS_URL; when the server is absent they are skipped
// loudly, except with CI=true, where an absent server is a failure (a green CI run must mean the
// Redis suites really ran).

/** Where tests look for Redis when REDIS_URL is unset. */
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

const CONNECT_TIMEOUT_MS = 2000;

/** REDIS_URL if set, else the default test server. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL || DEFAULT_TEST_REDIS_URL;
}

function isCi(): boolean {
  return process.env.CI === 'true';
}

function unavailableMessage(url: string, reason: string): string {
  return `Redis at ${redact(url)} is not reachable (${reason})`;
}

function warnSkipped(what: string, url: string, reason: string): void {
  console.warn(
    `\n!!! ${what}: Redis suites are SKIPPED. ${unavailableMessage(url, reason)}. ` +
      'Start Redis or set REDIS_URL to run them; with CI=true this is a failure. !!!\n',
  );
}

/**
 * The URL of a reachable test Redis, or null (after a loud warning) when there is none.
 * With CI=true an unreachable server rejects instead of answering null.
 */
export async function redisTestUrl(): Promise<string | null> {
  const url = testRedisUrl();
  // One attempt, no retries: this answers "is it there?", it does not wait for it.
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: CONNECT_TIMEOUT_MS, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The socket's error (ECONNREFUSED...) says more than connect()'s "Connection is closed".
  let socketError: Error | undefined;
  redis.on('error', (error: Error) => (socketError = error));
  try {
    await redis.connect();
    await redis.ping();
    return url;
  } catch (error) {
    const reason = (socketError ?? (error as Error)).message;
    if (isCi()) throw new Error(`CI=true: ${unavailableMessage(url, reason)}`);
    warnSkipped('redisTestUrl', url, reason);
    return null;
  } finally {
    redis.disconnect();
  }
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
  const probe = spawnSync(process.execPath, ['-e', script], {
    env: { ...process.env, SVC_PROBE_URL: url },
    encoding: 'utf8',
    timeout: CONNECT_TIMEOUT_MS + 2000,
  });
  if (probe.status === 0) return null;
  return probe.stderr?.trim() || probe.error?.message || `probe exited with ${probe.status ?? probe.signal}`;
}

/**
 * `describe` for suites that need Redis. Reachable: runs `body(url)`. Unreachable: fails with
 * CI=true, otherwise warns loudly and registers the suites with `describe.skip`.
 */
export function describeWithRedis(name: string, body: (url: string) => void): void {
  const url = testRedisUrl();
  const reason = probeRedisSync(url);
  const hint = reason && `${reason}; start Redis or set REDIS_URL`;
  describeWhenAvailable(name, `Redis at ${redact(url)}`, hint, () => body(url));
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable REDIS_URL)';
  }
}
