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

export interface RateLimiter {
  /**
   * Counts one hit on `key` in a fixed window of `rule.windowSeconds` and says whether it is within
   * `rule.limit`. Atomic: N concurrent hits on a fresh key at limit L allow exactly L.
   */
  hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
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
