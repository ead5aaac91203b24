import type { Redis } from 'ioredis';
import { systemClock, type Clock, type RateLimitDecision, type RateLimitRule, type RateLimiter } from '@svc/core';

/**
 * One hit, atomically (Redis runs a script with nothing interleaved, so N concurrent hits yield
 * counts 1..N). The key is a hash {w: window index, c: count}. A hit in a newer window starts the
 * count again; a hit naming an older window (an instance whose clock lags at the boundary) counts
 * into the newer one rather than flapping the count back and forth.
 * The expiry only collects old keys: windows are decided by the caller's clock, never Redis's.
 * KEYS[1] limiter key; ARGV[1] window index; ARGV[2] ms until the window ends, plus a margin.
 * Answers {count, window the hit was counted in}.
 */
const HIT_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], 'w')
if stored and tonumber(stored) >= tonumber(ARGV[1]) then
  return {redis.call('HINCRBY', KEYS[1], 'c', 1), stored}
end
redis.call('HSET', KEYS[1], 'w', ARGV[1], 'c', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, ARGV[1]}
`;

/**
 * Takes one hit back, atomically, if the key still counts the window the hit went into and its
 * count is above zero. KEYS[1] limiter key; ARGV[1] the window the hit answered.
 */
const REFUND_SCRIPT = `
if redis.call('HGET', KEYS[1], 'w') == ARGV[1] and tonumber(redis.call('HGET', KEYS[1], 'c')) > 0 then
  redis.call('HINCRBY', KEYS[1], 'c', -1)
end
return 0
`;

/** Names under which the scripts are defined on the client (EVALSHA, falling back to EVAL once). */
const HIT = 'svcRateLimitHit';
const REFUND = 'svcRateLimitRefund';
/** Keeps a key a little past its window so a lagging instance still finds its count. */
const EXPIRY_MARGIN_MS = 5_000;

type ClientWithScript = Redis & {
  [HIT](key: string, window: number, ttlMs: number): Promise<[number, string]>;
  [REFUND](key: string, window: string): Promise<number>;
};

export interface RedisRateLimiterOptions {
  /** A connected client; see `connectRedis` for options that make a limiter fail fast. */
  redis: Redis;
  /** Source of time for windows (a fixed window is floor(now / windowMs)). Default: system clock. */
  clock?: Clock;
  /** Namespace for this limiter's keys. Default `'svc:rl:'`. */
  prefix?: string;
}

/**
 * Fixed-window RateLimiter shared by every API instance through Redis: one round trip and one
 * key per limiter key. Errors (Redis down, timeout) reject; wrap it in `FailoverRateLimiter` to
 * keep serving through an outage. Each key is assumed to be used with one rule.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ClientWithScript;
  private readonly clock: Clock;
  private readonly prefix: string;

  constructor(options: RedisRateLimiterOptions) {
    this.clock = options.clock ?? systemClock;
    this.prefix = options.prefix ?? 'svc:rl:';
    // defineCommand is per client and idempotent, so several limiters may share one client.
    options.redis.defineCommand(HIT, { numberOfKeys: 1, lua: HIT_SCRIPT });
    options.redis.defineCommand(REFUND, { numberOfKeys: 1, lua: REFUND_SCRIPT });
    this.redis = options.redis as ClientWithScript;
  }

  /** Counts one hit in the window that contains the clock's now. Rejects if Redis fails. */
  async hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    const now = this.clock.now().getTime();
    const windowMs = rule.windowSeconds * 1000;
    const window = Math.floor(now / windowMs);
    const windowEnd = (window + 1) * windowMs;
    const [counted, countedIn] = await this.redis[HIT](this.prefix + key, window, windowEnd - now + EXPIRY_MARGIN_MS);
    const count = Number(counted);
    return {
      allowed: count <= rule.limit,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - count),
      resetSeconds: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
      window: String(countedIn),
    };
  }

  /** Takes back a hit of the window `window` names, if the key still counts that window. Rejects if Redis fails. */
  async refund(key: string, _rule: RateLimitRule, window: string): Promise<void> {
    await this.redis[REFUND](this.prefix + key, window);
  }

  /**
   * Forgets the key's count. The port gives no rule here, so the key cannot name its window:
   * that is why the window lives inside the one hash instead of in the key's name.
   */
  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}
