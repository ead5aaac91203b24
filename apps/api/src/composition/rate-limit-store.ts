import type { Logger } from 'pino';
import { connectRedis, RedisRateLimiter } from '@svc/adapters-redis';
import { FailoverRateLimiter, hitAllOf, InMemoryRateLimiter, systemClock, type Clock, type RateLimitHit, type RateLimitRule, type RateLimiter } from '@svc/core';

export interface RateLimitStoreOptions {
  /** Redis shared by every instance; null = counts in this process only (the embedded default). */
  redisUrl: string | null;
  /** Prefix of the Redis keys (SVC_REDIS_PREFIX); the limiter adds `rl:`. */
  redisPrefix: string;
  logger: Logger;
  clock?: Clock;
  /** Told about every failed call to the shared store (a metric); logging is done here. */
  onStoreFailure?: (error: unknown) => void;
  /** Bound on each Redis command, in ms: the limiter's decision time while Redis hangs (SVC_REDIS_TIMEOUT_MS). */
  redisTimeoutMs?: number;
}

export interface RateLimitStore {
  limiter: RateLimiter;
  /** Closes the Redis connection, if any. */
  close(): Promise<void>;
}

/**
 * The rate limiter (docs/security.md#rate-limits): counts in Redis when REDIS_URL is set (one count for every instance),
 * in memory otherwise, and while Redis fails applies each rule's `whenStoreDown` with per-process
 * counts, recovering by itself when Redis answers again. Never throws on a hit.
 */
export async function buildRateLimitStore(options: RateLimitStoreOptions): Promise<RateLimitStore> {
  const clock = options.clock ?? systemClock;
  const redis: Awaited<ReturnType<typeof connectRedis>> | null = options.redisUrl ? await connectRedis(options.redisUrl, { logger: options.logger, timeoutMs: options.redisTimeoutMs }) : null;
  const shared: RateLimiter = redis ? new RedisRateLimiter({ redis, clock, prefix: options.redisPrefix }) : new InMemoryRateLimiter(clock);
  const outage = outageLog(options.logger);
  const limiter = new FailoverRateLimiter({
    primary: reportingRecovery(shared, outage.recovered),
    fallback: new InMemoryRateLimiter(clock),
    clock,
    onFailure: (error) => {
      outage.failed(error);
      options.onStoreFailure?.(error);
    },
  });
  return { limiter, close: async () => void (await redis?.quit().catch(() => redis.disconnect())) };
}

/**
 * One warning when the shared store starts failing and one line when it answers again, however
 * many hits fail in between (a burst of sign-ins must not become a burst of log lines).
 */
function outageLog(logger: Logger) {
  let down = false;
  return {
    failed(error: unknown) {
      if (down) return;
      down = true;
      logger.warn({ err: error }, 'rate-limit store failing; limits now count per process (stricter for sign-in), refresh goes on');
    },
    recovered() {
      if (!down) return;
      down = false;
      logger.info('rate-limit store answering again; limits shared by every instance');
    },
  };
}

/** `store`, telling `recovered` after each successful hit. */
function reportingRecovery(store: RateLimiter, recovered: () => void): RateLimiter {
  return {
    hit: async (key: string, rule: RateLimitRule) => {
      const decision = await store.hit(key, rule);
      recovered();
      return decision;
    },
    hitAll: async (hits: readonly RateLimitHit[]) => {
      const decisions = await hitAllOf(store, hits);
      recovered();
      return decisions;
    },
    refund: (key: string, rule: RateLimitRule, window: string) => store.refund(key, rule, window),
    reset: (key: string) => store.reset(key),
  };
}
