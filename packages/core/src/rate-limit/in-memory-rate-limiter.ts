import type { Clock } from '../ports/clock';
import { systemClock } from '../ports/clock';
import type { RateLimitDecision, RateLimitHit, RateLimitRule, RateLimiter } from '../ports/rate-limiter';

/**
 * Fixed-window limiter in process memory: the embedded default and the reference for other
 * stores. Expired windows are swept lazily so memory stays bounded by active keys.
 */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(private readonly clock: Clock = systemClock) {}

  async hit(key: string, rule: RateLimitRule): Promise<RateLimitDecision> {
    return this.count(key, rule);
  }

  async hitAll(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
    return hits.map(({ key, rule }) => this.count(key, rule));
  }

  private count(key: string, rule: RateLimitRule): RateLimitDecision {
    const now = this.clock.now().getTime();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + rule.windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const allowed = window.count <= rule.limit;
    return {
      allowed,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
      // A window here starts at its first hit; its end names it.
      window: String(window.resetAt),
    };
  }

  async refund(key: string, _rule: RateLimitRule, windowName: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && String(window.resetAt) === windowName && window.count > 0) window.count -= 1;
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
