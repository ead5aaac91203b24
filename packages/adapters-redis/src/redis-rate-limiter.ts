import type { Redis } from 'ioredis';
import { systemClock, type Clock, type RateLimitDecision, type RateLimitHit, type RateLimitRule, type RateLimiter } from '@svc/core';

/**
 * One hit on each key, each atomically (Redis runs a script with nothing interleaved, so N
 * concurrent hits on a key yield counts 1..N), all in one round trip: a request's limits cost one
 * command, not one each. Each key is a hash {w: window index, c: count}. A hit in a newer window
 * starts the count again; a hit naming an older window (an instance whose clock lags at the
 * boundary) counts into the newer one rather than flapping the count back and forth.
 * The expiry only collects old keys: windows are decided by the caller's clock, never Redis's.
 * KEYS: the limiter keys; ARGV[2i-1], ARGV[2i]: key i's window index, and ms until that window
 * ends plus a margin. Answers {count, window the hit was counted in} per key, in KEYS' order.
 */
const HIT_SCRIPT = `
local answers = {}
for i, key in ipairs(KEYS) do
  local window = ARGV[2 * i - 1]
  local stored = redis.call('HGET', key, 'w')
  if stored and tonumber(stored) >= tonumber(window) then
    answers[i] = {redis.call('HINCRBY', key, 'c', 1), stored}
  else
    redis.call('HSET', key, 'w', window, 'c', 1)
    redis.call('PEXPIRE', key, ARGV[2 * i])
    answers[i] = {1, window}
  end
end
return answers
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
  /** The number of keys, the keys, then each key's window index and ms to keep it. */
  [HIT](...keysThenArguments: Array<string | number>): Promise<Array<[number, string]>>;
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
 * Fixed-window RateLimiter shared by every API instance through Redis: one round trip per hit, or
 * per request with `hitAll`, and one key per limiter key. Errors (Redis down, timeout) reject;
 * wrap it in `FailoverRateLimiter` to keep serving through an outage. Each key is assumed to be
 * used with one rule.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: ClientWithScript;
  private readonly clock: Clock;
  private readonly prefix: string;

  constructor(options: RedisRateLimiterOptions) {
    this.clock = options.clock ?? systemClock;
    this.prefix = options.prefix ?? 'svc:rl:';
    // defineCommand is per client and idempotent, so several limiters may share one client.
    // The hit script takes any number of keys: its calls name how many first.
    options.redis.defineCommand(HIT, { lua: HIT_SCRIPT });
    options.redis.defineCommand(REFUND, { numberOfKeys: 1, lua: REFUND_SCRIPT });
    this.redis = options.redis as ClientWithScript;
  }

  /** Counts one hit in the window that contains the clock's now. Rejects if Redis fails. */
  async hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    const [decision] = await this.hitAll([{ key, rule }]);
    return decision;
  }

  /** One hit on each key, in one script call (one round trip). Rejects if Redis fails. */
  async hitAll(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
    if (hits.length === 0) return [];
    const now = this.clock.now().getTime();
    const windows = hits.map(({ rule }) => {
      const windowMs = rule.windowSeconds * 1000;
      const window = Math.floor(now / windowMs);
      return { window, end: (window + 1) * windowMs };
    });
    const argv: Array<string | number> = [hits.length];
    for (const { key } of hits) argv.push(this.prefix + key);
    for (const { window, end } of windows) argv.push(window, end - now + EXPIRY_MARGIN_MS);
    const answers = await this.redis[HIT](...argv);
    return hits.map(({ rule }, i) => {
      const count = Number(answers[i][0]);
      return {
        allowed: count <= rule.limit,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - count),
        resetSeconds: Math.max(1, Math.ceil((windows[i].end - now) / 1000)),
        window: String(answers[i][1]),
      };
    });
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
