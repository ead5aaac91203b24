import { sameScope, type TenantScope } from '../domain/environment';
import type { RateLimitedHour, RateLimitStats } from '../ports/rate-limit-stats';

/** Reference RateLimitStats in process memory: one count per scope and hour. */
export class InMemoryRateLimitStats implements RateLimitStats {
  private hours: { scope: TenantScope; hour: Date; count: number }[] = [];

  async add(scope: TenantScope, hour: Date, count: number): Promise<void> {
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
    const known = this.hours.find((h) => sameScope(h.scope, scope) && h.hour.getTime() === hour.getTime());
    if (known) known.count += count;
    else this.hours.push({ scope: { projectId: scope.projectId, environment: scope.environment }, hour: new Date(hour), count });
  }

  async listHours(scope: TenantScope, range: { from: Date; to: Date }): Promise<RateLimitedHour[]> {
    return this.hours
      .filter((h) => sameScope(h.scope, scope) && h.hour >= range.from && h.hour < range.to)
      .sort((a, b) => a.hour.getTime() - b.hour.getTime())
      .map((h) => ({ hour: new Date(h.hour), count: h.count }));
  }

  async deleteBefore(before: Date, limit: number): Promise<number> {
    const doomed = new Set(this.hours.filter((h) => h.hour < before).slice(0, limit));
    this.hours = this.hours.filter((h) => !doomed.has(h));
    return doomed.size;
  }
}
