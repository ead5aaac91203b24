import { sameScope, type TenantScope } from '../domain/environment';
import { utcDay } from '../domain/activity-stats';
import type { AuditEntry, SecurityEventType } from '../domain/security-event';
import type { WebhookMessage } from '../domain/webhook';
import type { AuditDayCount, AuditLog, AuditLogQuery } from '../ports/audit-log';
import type { WebhookStore } from '../ports/webhook-store';

/**
 * Reference AuditLog in process memory: append-only, newest first by `at` then `id`. Give it the
 * webhook store it shares a database with, as the real adapters do, to queue deliveries with entries.
 */
export class InMemoryAuditLog implements AuditLog {
  private entries: { scope: TenantScope; entry: AuditEntry }[] = [];

  constructor(private readonly webhooks?: Pick<WebhookStore, 'enqueue'>) {}

  async append(scope: TenantScope, entry: AuditEntry, options: { deliveries?: WebhookMessage[] } = {}): Promise<void> {
    if (this.entries.some((e) => e.entry.id === entry.id)) throw new Error('duplicate audit entry id');
    const deliveries = options.deliveries ?? [];
    if (deliveries.length > 0) {
      if (!this.webhooks) throw new Error('this audit log has no webhook store to queue deliveries in');
      // Rejects, storing nothing, when a delivery names an endpoint outside the scope.
      await this.webhooks.enqueue(scope, deliveries);
    }
    this.entries.push({ scope: { ...scope }, entry: structuredClone(entry) });
  }

  async list(scope: TenantScope, query: AuditLogQuery): Promise<AuditEntry[]> {
    return this.entries
      .filter((e) => sameScope(e.scope, scope) && matches(e.entry, query))
      .map((e) => e.entry)
      .sort(newestFirst)
      .slice(0, query.limit)
      .map((entry) => structuredClone(entry));
  }

  async countPerDay(scope: TenantScope, query: { types: readonly SecurityEventType[]; from: Date; to: Date }): Promise<AuditDayCount[]> {
    const counts = new Map<string, AuditDayCount>();
    for (const { scope: where, entry } of this.entries) {
      if (!sameScope(where, scope) || !query.types.includes(entry.type) || !matches(entry, { from: query.from, to: query.to, limit: 0 })) continue;
      const day = utcDay(entry.at);
      const key = `${day}|${entry.type}`;
      const known = counts.get(key);
      if (known) known.count += 1;
      else counts.set(key, { day, type: entry.type, count: 1 });
    }
    return [...counts.values()];
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    const doomed = new Set(this.entries.filter((e) => e.entry.expiresAt.getTime() <= now.getTime()).slice(0, limit));
    this.entries = this.entries.filter((e) => !doomed.has(e));
    return doomed.size;
  }
}

function matches(entry: AuditEntry, query: AuditLogQuery): boolean {
  const at = entry.at.getTime();
  if (query.type !== undefined && entry.type !== query.type) return false;
  if (query.userId !== undefined && entry.userId !== query.userId) return false;
  if (query.from !== undefined && at < query.from.getTime()) return false;
  if (query.to !== undefined && at >= query.to.getTime()) return false;
  if (query.before !== undefined && newestFirst(entry, query.before) <= 0) return false;
  return true;
}

/** Negative when `a` comes first (newer), in the order at descending, id descending. */
function newestFirst(a: Pick<AuditEntry, 'at' | 'id'>, b: Pick<AuditEntry, 'at' | 'id'>): number {
  return b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}
