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
}

export interface RateLimiter {
  /**
   * Counts one hit on `key` in a fixed window of `rule.windowSeconds` and says whether it is within
   * `rule.limit`. Atomic: N concurrent hits on a fresh key at limit L allow exactly L.
   */
  hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision>;
  /** Forgets the key's count (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
}
