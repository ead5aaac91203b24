import type { Redis } from 'ioredis';

/** The two levels this module logs at; a pino logger or `console` fits. */
export interface RedisLogger {
  warn(details: object, message?: string): void;
  info(details: object, message?: string): void;
}

export interface ConnectRedisOptions {
  /** Told once when Redis becomes unreachable and once when it is back. Default: silent. */
  logger?: RedisLogger;
  /**
   * Bound on each command, in ms: how long a caller waits on a Redis that holds the connection
   * open but does not answer (paused, overloaded) before it gets an error. Default 100.
   */
  timeoutMs?: number;
  /** Bound on opening a connection, in ms. Default 1000 (commands fail at once while disconnected). */
  connectTimeoutMs?: number;
  /** Cap of the reconnect backoff, in ms. Default 2000. */
  maxReconnectDelayMs?: number;
}

/**
 * Opens an ioredis client tuned for a rate limiter, where a late answer is worth no more than
 * none: while Redis is down commands fail at once (no offline queue) or within `timeoutMs`,
 * so a request never waits on the limiter, and the client keeps reconnecting in the background.
 * Resolves once the client is ready or its first attempt has failed; never rejects, since a
 * Redis outage at boot is an outage like any other (docs/security.md#rate-limits: keep serving).
 */
export async function connectRedis(url: string, options: ConnectRedisOptions = {}): Promise<Redis> {
  const { logger, timeoutMs = 100, connectTimeoutMs = 1000, maxReconnectDelayMs = 2000 } = options;
  // Required here, not at import: the embedded default (no REDIS_URL) never loads ioredis.
  const { Redis: Client } = require('ioredis') as typeof import('ioredis');
  const redis = new Client(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: connectTimeoutMs,
    commandTimeout: timeoutMs,
    // How long disconnect() lets a socket close politely; the 2 s default makes a shutdown
    // during an outage linger for nothing.
    disconnectTimeout: connectTimeoutMs,
    // Reconnect forever: returning a number never gives up; the cap keeps recovery quick.
    retryStrategy: (attempt) => Math.min(50 * 2 ** Math.min(attempt, 10), maxReconnectDelayMs),
    // RESP2: we need nothing from RESP3, and RESP2 also talks to Redis < 6 and to proxies
    // that don't know HELLO.
    protocol: 2,
  });
  watchOutages(redis, url, logger);
  await redis.connect().catch(() => undefined); // already logged by watchOutages; retries go on
  return redis;
}

/** PING with the client's own timeouts: true if Redis answered, false otherwise. Never rejects. */
export async function pingRedis(redis: Redis): Promise<boolean> {
  try {
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  }
}

/**
 * Logs the start and end of each outage once (a dead Redis emits an error on every reconnect
 * attempt). The listener also keeps an 'error' event from crashing the process, which is what
 * an EventEmitter does with an error nobody listens to.
 */
function watchOutages(redis: Redis, url: string, logger: RedisLogger | undefined): void {
  let down = false;
  const where = redactedUrl(url);
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger?.warn({ err: error, redis: where }, 'redis unreachable; retrying in the background');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger?.info({ redis: where }, 'redis reachable again');
  });
}

/** The URL without its password, fit for a log line. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis (unparsable url)';
  }
}
