import type { Clock } from '../ports/clock';
import { systemClock } from '../ports/clock';
import { hitAllOf, type RateLimitDecision, type RateLimitHit, type RateLimitRule, type RateLimiter } from '../ports/rate-limiter';

/**
 * What a limit does while the shared store is down: `'allow'` lets every hit through (for limits
 * whose only job is fairness), `'local-strict'` counts in this process with a stricter limit (for
 * limits that guard against guessing, e.g. login, where failing open would invite brute force).
 */
export type StoreDownPolicy = 'allow' | 'local-strict';

/** A rate-limit rule that also says what to do when the shared store is unreachable. */
export interface FailoverRule extends RateLimitRule {
  /** Defaults to `'local-strict'`. */
  whenStoreDown?: StoreDownPolicy;
}

/** A hit whose rule says what to do while the shared store is down. */
export interface FailoverHit extends RateLimitHit {
  rule: FailoverRule;
}

export interface FailoverRateLimiterOptions {
  /** The shared store (e.g. Redis) that every API instance counts in. */
  primary: RateLimiter;
  /** A store that cannot fail (in process memory), used only while the primary is failing. */
  fallback: RateLimiter;
  /** Told about every primary failure; rate-limiting the log lines is the caller's business. */
  onFailure?: (error: unknown) => void;
  /** Share of `rule.limit` allowed per process under `'local-strict'`; in (0, 1]. Default 0.5. */
  strictFactor?: number;
  /** After a failure the primary is left alone for `retryAfterMs`; time comes from this clock. */
  clock?: Clock;
  /** Default 1000 ms. 0 retries the primary on every hit. */
  retryAfterMs?: number;
}

/**
 * A RateLimiter that counts in `primary` and, while the primary fails, degrades per rule instead
 * of failing the request: the API keeps serving through a Redis outage. Each
 * process then counts alone, so `'local-strict'` divides the limit to keep the sum across a few
 * instances near the real one. Recovery needs no signal: once `retryAfterMs` has passed the next
 * hit tries the primary again. Never throws from `hit`, `hitAll`, `refund` or `reset`.
 */
export class FailoverRateLimiter implements RateLimiter {
  private readonly primary: RateLimiter;
  private readonly fallback: RateLimiter;
  private readonly onFailure: (error: unknown) => void;
  private readonly strictFactor: number;
  private readonly clock: Clock;
  private readonly retryAfterMs: number;
  private primaryFailedAt: number | null = null;

  constructor(options: FailoverRateLimiterOptions) {
    const { strictFactor = 0.5, retryAfterMs = 1000 } = options;
    if (!(strictFactor > 0 && strictFactor <= 1)) throw new RangeError('strictFactor must be in (0, 1]');
    if (!(retryAfterMs >= 0)) throw new RangeError('retryAfterMs must be >= 0');
    this.primary = options.primary;
    this.fallback = options.fallback;
    this.onFailure = options.onFailure ?? (() => undefined);
    this.strictFactor = strictFactor;
    this.clock = options.clock ?? systemClock;
    this.retryAfterMs = retryAfterMs;
  }

  /** Counts in the primary; if it fails (or failed within `retryAfterMs`), applies `whenStoreDown`. */
  async hit(key: string, rule: FailoverRule): Promise<RateLimitDecision> {
    const [decision] = await this.hitAll([{ key, rule }]);
    return decision;
  }

  /**
   * Counts the hits in the primary in one call; if it fails (or failed within `retryAfterMs`),
   * each hit's rule applies its own `whenStoreDown`.
   */
  async hitAll(hits: readonly FailoverHit[]): Promise<RateLimitDecision[]> {
    if (!this.resting()) {
      try {
        const decisions = await hitAllOf(
          this.primary,
          hits.map(({ key, rule }) => ({ key, rule: { limit: rule.limit, windowSeconds: rule.windowSeconds } })),
        );
        this.primaryFailedAt = null;
        return decisions.map((decision) => ({ ...decision, window: `${PRIMARY}${decision.window}` }));
      } catch (error) {
        this.primaryFailedAt = this.clock.now().getTime();
        this.report(error);
      }
    }
    return Promise.all(hits.map(({ key, rule }) => this.degraded(key, rule)));
  }

  /** Refunds in the store that counted the hit (its window says which); never throws. */
  async refund(key: string, rule: FailoverRule, window: string): Promise<void> {
    const primary = window.startsWith(PRIMARY);
    if (!primary && !window.startsWith(FALLBACK)) return; // the hit was let through uncounted
    const inner = window.slice((primary ? PRIMARY : FALLBACK).length);
    try {
      if (primary) await this.primary.refund(key, { limit: rule.limit, windowSeconds: rule.windowSeconds }, inner);
      else await this.fallback.refund(key, this.strictRule(rule), inner);
    } catch (error) {
      this.report(error);
    }
  }

  /** Resets in both stores, so a reset made during an outage also holds after it. */
  async reset(key: string): Promise<void> {
    await Promise.all([this.primary, this.fallback].map((store) => store.reset(key).catch((error: unknown) => this.report(error))));
  }

  private async degraded(key: string, rule: FailoverRule): Promise<RateLimitDecision> {
    if (rule.whenStoreDown === 'allow') return allowAll(rule);
    try {
      const decision = await this.fallback.hit(key, this.strictRule(rule));
      return { ...decision, window: `${FALLBACK}${decision.window}` };
    } catch (error) {
      // A fallback that fails too leaves nothing to count in; letting the request through keeps
      // the promise of never failing a request because of the limiter.
      this.report(error);
      return allowAll(rule);
    }
  }

  /** The per-process limit of `'local-strict'`. */
  private strictRule(rule: RateLimitRule): RateLimitRule {
    return { limit: Math.max(1, Math.floor(rule.limit * this.strictFactor)), windowSeconds: rule.windowSeconds };
  }

  /** True while a recent failure says the primary is probably still down: don't wait on it again. */
  private resting(): boolean {
    if (this.primaryFailedAt === null) return false;
    const elapsed = this.clock.now().getTime() - this.primaryFailedAt;
    return elapsed >= 0 && elapsed < this.retryAfterMs; // a clock set backwards must not rest forever
  }

  private report(error: unknown): void {
    try {
      this.onFailure(error);
    } catch {
      // A broken logger must not turn a degraded limiter into a failing one.
    }
  }
}

// Prefixes of a decision's window: which store counted the hit, so its refund goes there too.
const PRIMARY = 'p:';
const FALLBACK = 'f:';

/** A hit let through uncounted: its window names no store, so a refund of it does nothing. */
function allowAll(rule: RateLimitRule): RateLimitDecision {
  return { allowed: true, limit: rule.limit, remaining: rule.limit, resetSeconds: rule.windowSeconds, window: 'uncounted' };
}
