import { rateLimitedHour } from '../domain/activity-stats';
import type { TenantScope } from '../domain/environment';
import type { Clock } from '../ports/clock';
import type { RateLimitStats } from '../ports/rate-limit-stats';

interface Pending {
  scope: TenantScope;
  hour: Date;
  count: number;
}

/**
 * Counts requests refused with 429 in memory, per project environment and UTC hour, and adds
 * them to the store on `flush()` (docs/decisions.md, "Rate-limited requests per environment"):
 * a flood of refusals costs one increment per environment and hour per flush, not a write per
 * request. Increments that fail to reach the store are kept for the next flush.
 */
export class RateLimitedTally {
  private pending = new Map<string, Pending>();

  constructor(private readonly deps: { store: Pick<RateLimitStats, 'add'>; clock: Clock }) {}

  /** One refused request of `scope`, now. Synchronous: the refusal waits for nothing. */
  note(scope: TenantScope): void {
    this.merge({ scope: { projectId: scope.projectId, environment: scope.environment }, hour: rateLimitedHour(this.deps.clock.now()), count: 1 });
  }

  /** Refusals counted and not yet stored. */
  get unflushed(): number {
    let total = 0;
    for (const entry of this.pending.values()) total += entry.count;
    return total;
  }

  /**
   * Adds what was counted since the last flush to the store; answers how many refusals went.
   * What fails stays counted (and the first error is thrown once the rest were tried).
   */
  async flush(): Promise<number> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    let stored = 0;
    let failure: { error: unknown } | null = null;
    for (const entry of batch) {
      try {
        await this.deps.store.add(entry.scope, entry.hour, entry.count);
        stored += entry.count;
      } catch (error) {
        this.merge(entry);
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
    return stored;
  }

  private merge(entry: Pending): void {
    const key = `${entry.scope.projectId}:${entry.scope.environment}:${entry.hour.getTime()}`;
    const known = this.pending.get(key);
    if (known) known.count += entry.count;
    else this.pending.set(key, { ...entry });
  }
}
