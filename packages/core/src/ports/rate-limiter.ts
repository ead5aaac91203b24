export interface RateLimitRule {
  /** Hits allowed per window. */
  limit: number;
  windowSeconds: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (>= 1 when not allowed). */
  resetSeconds: number;
  /**
   * Names the window this hit was counted in, for `refund` (opaque: each store has its own form).
   * A store that counted nothing (e.g. a limit let through while its store is down) says so here,
   * and a refund with it does nothing.
   */
  window: string;
}

/** One hit of a request on one limit: the limit's key and its rule. */
export interface RateLimitHit {
  key: string;
  rule: RateLimitRule;
}

export interface RateLimiter {
  /**
   * Counts one hit on `key` in a fixed window of `rule.windowSeconds` and says whether it is within
   * `rule.limit`. Atomic: N concurrent hits on a fresh key at limit L allow exactly L.
   */
  hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
  /**
   * `hit` on each of `hits` (a request's limits), in one round trip to the store where it has
   * one: each hit is counted and decided on its own, as `hit` would (every one is counted, also
   * when another is refused), and the decisions come in the order of `hits`. Rejects as `hit` does,
   * for all of them at once. Optional (it came later): callers go through {@link hitAllOf}, which
   * calls `hit` on each of a limiter without it.
   */
  hitAll?(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]>;
  /**
   * Takes back one hit that `hit` counted, named by its decision's `window`: for a request that
   * failed through no fault of its sender (the service answered 5xx), so that an outage does not
   * use up anybody's budget. Only from that window: once it has ended, the refund does nothing.
   * Never below zero; atomic like `hit`; an unknown key is no error.
   */
  refund(key: string, rule: RateLimitRule, window: string): Promise<void>;
  /** Forgets the key's count (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
}

/** One hit on each of `hits` through `limiter.hitAll`, or `hit` on each at once for a limiter without it. */
export function hitAllOf(limiter: RateLimiter, hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
  return limiter.hitAll ? limiter.hitAll(hits) : Promise.all(hits.map(({ key, rule }) => limiter.hit(key, rule)));
}
