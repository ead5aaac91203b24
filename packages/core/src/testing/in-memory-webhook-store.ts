import { sameScope, type TenantScope } from '../domain/environment';
import type { ClaimedWebhookMessage, WebhookAttempt, WebhookEndpoint, WebhookMessage, WebhookMessageStatus } from '../domain/webhook';
import type { HeldClaim } from '../ports/held-claim';
import type { WebhookEndpointChanges, WebhookOutcome, WebhookStore } from '../ports/webhook-store';

/** Reference WebhookStore in process memory; no await inside a step, so each step is atomic. */
export class InMemoryWebhookStore implements WebhookStore {
  private endpoints: { scope: TenantScope; endpoint: WebhookEndpoint }[] = [];
  private messages: { scope: TenantScope; message: WebhookMessage }[] = [];
  private attempts: { scope: TenantScope; attempt: WebhookAttempt }[] = [];

  async createEndpoint(scope: TenantScope, endpoint: WebhookEndpoint): Promise<void> {
    if (this.endpoints.some((e) => e.endpoint.id === endpoint.id)) throw new Error('duplicate endpoint id');
    this.endpoints.push({ scope: { ...scope }, endpoint: structuredClone(endpoint) });
  }

  async listEndpoints(scope: TenantScope): Promise<WebhookEndpoint[]> {
    return this.endpoints
      .filter((e) => sameScope(e.scope, scope))
      .map((e) => structuredClone(e.endpoint))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async findEndpoint(scope: TenantScope, id: string): Promise<WebhookEndpoint | null> {
    const found = this.endpoints.find((e) => sameScope(e.scope, scope) && e.endpoint.id === id);
    return found ? structuredClone(found.endpoint) : null;
  }

  async updateEndpoint(scope: TenantScope, id: string, changes: WebhookEndpointChanges, updatedAt: Date): Promise<WebhookEndpoint | null> {
    const found = this.endpoints.find((e) => sameScope(e.scope, scope) && e.endpoint.id === id);
    if (!found) return null;
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    found.endpoint = { ...found.endpoint, ...structuredClone(defined), updatedAt: new Date(updatedAt) };
    return structuredClone(found.endpoint);
  }

  async deleteEndpoint(scope: TenantScope, id: string): Promise<boolean> {
    const before = this.endpoints.length;
    this.endpoints = this.endpoints.filter((e) => !(sameScope(e.scope, scope) && e.endpoint.id === id));
    if (this.endpoints.length === before) return false;
    const gone = new Set(this.messages.filter((m) => m.message.endpointId === id).map((m) => m.message.id));
    this.messages = this.messages.filter((m) => !gone.has(m.message.id));
    this.attempts = this.attempts.filter((a) => !gone.has(a.attempt.messageId));
    return true;
  }

  async enqueue(scope: TenantScope, messages: WebhookMessage[]): Promise<void> {
    const owned = new Set(this.endpoints.filter((e) => sameScope(e.scope, scope)).map((e) => e.endpoint.id));
    if (messages.some((m) => !owned.has(m.endpointId) || this.messages.some((x) => x.message.id === m.id))) throw new Error('unknown endpoint or duplicate message');
    for (const message of messages) {
      this.messages.push({ scope: { ...scope }, message: { ...structuredClone(message), status: 'pending', attempts: 0, leaseUntil: null } });
    }
  }

  async claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<ClaimedWebhookMessage[]> {
    const due = this.messages
      .filter(({ message: m }) => (m.status === 'pending' && m.nextAttemptAt <= now) || (m.status === 'sending' && m.leaseUntil !== null && m.leaseUntil <= now))
      .sort((a, b) => a.message.nextAttemptAt.getTime() - b.message.nextAttemptAt.getTime() || a.message.createdAt.getTime() - b.message.createdAt.getTime())
      .slice(0, options.limit);
    return due.map((entry) => {
      entry.message = { ...entry.message, status: 'sending', attempts: entry.message.attempts + 1, leaseUntil: new Date(now.getTime() + options.leaseSeconds * 1000) };
      return { ...structuredClone(entry.message), scope: { ...entry.scope } };
    });
  }

  async finishAttempt(scope: TenantScope, attempt: WebhookAttempt, outcome: WebhookOutcome): Promise<void> {
    const found = this.messages.find((m) => sameScope(m.scope, scope) && m.message.id === attempt.messageId);
    if (!found) return;
    this.attempts.push({ scope: { ...scope }, attempt: structuredClone(attempt) });
    if (found.message.status !== 'sending') return;
    const common = { leaseUntil: null, lastStatusCode: attempt.statusCode, lastError: attempt.error };
    if (outcome.status === 'delivered') found.message = { ...found.message, ...common, status: 'delivered', deliveredAt: new Date(attempt.at) };
    else if (outcome.status === 'pending') found.message = { ...found.message, ...common, status: 'pending', nextAttemptAt: new Date(outcome.nextAttemptAt) };
    else found.message = { ...found.message, ...common, status: 'dead' };
  }

  async release(claims: readonly HeldClaim[], dueAt: Date): Promise<void> {
    for (const claim of claims) {
      const found = this.messages.find((m) => sameScope(m.scope, claim.scope) && m.message.id === claim.id);
      if (found?.message.status !== 'sending' || found.message.leaseUntil?.getTime() !== claim.leaseUntil.getTime()) continue;
      found.message = { ...found.message, status: 'pending', attempts: found.message.attempts - 1, nextAttemptAt: new Date(dueAt), leaseUntil: null };
    }
  }

  async listMessages(scope: TenantScope, query: { endpointId?: string; limit: number }): Promise<WebhookMessage[]> {
    return this.messages
      .filter((m) => sameScope(m.scope, scope) && (query.endpointId === undefined || m.message.endpointId === query.endpointId))
      .map((m) => structuredClone(m.message))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
      .slice(0, query.limit);
  }

  async findMessage(scope: TenantScope, id: string): Promise<WebhookMessage | null> {
    const found = this.messages.find((m) => sameScope(m.scope, scope) && m.message.id === id);
    return found ? structuredClone(found.message) : null;
  }

  async listAttempts(scope: TenantScope, messageId: string): Promise<WebhookAttempt[]> {
    return this.attempts
      .filter((a) => sameScope(a.scope, scope) && a.attempt.messageId === messageId)
      .map((a) => structuredClone(a.attempt))
      .sort((a, b) => a.attempt - b.attempt || a.at.getTime() - b.at.getTime());
  }

  async requeue(scope: TenantScope, messageId: string, now: Date): Promise<boolean> {
    const found = this.messages.find((m) => sameScope(m.scope, scope) && m.message.id === messageId);
    if (!found || found.message.status === 'sending') return false;
    found.message = { ...found.message, status: 'pending', attempts: 0, nextAttemptAt: new Date(now), leaseUntil: null, deliveredAt: null };
    return true;
  }

  async requeueRange(scope: TenantScope, endpointId: string, range: { from: Date; to: Date; limit: number }, now: Date): Promise<number> {
    const chosen = this.messages
      .filter(({ scope: s, message: m }) => sameScope(s, scope) && m.endpointId === endpointId && (m.status === 'delivered' || m.status === 'dead'))
      .filter(({ message: m }) => m.createdAt >= range.from && m.createdAt < range.to)
      .sort((a, b) => a.message.createdAt.getTime() - b.message.createdAt.getTime())
      .slice(0, range.limit);
    for (const entry of chosen) await this.requeue(entry.scope, entry.message.id, now);
    return chosen.length;
  }

  async stats(now: Date): Promise<{ counts: Record<WebhookMessageStatus, number>; oldestDueAt: Date | null }> {
    const counts: Record<WebhookMessageStatus, number> = { pending: 0, sending: 0, delivered: 0, dead: 0 };
    let oldestDueAt: Date | null = null;
    for (const { message } of this.messages) {
      counts[message.status] += 1;
      if (message.status === 'pending' && message.nextAttemptAt <= now && (!oldestDueAt || message.nextAttemptAt < oldestDueAt)) oldestDueAt = new Date(message.nextAttemptAt);
    }
    return { counts, oldestDueAt };
  }

  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    const doomed = new Set(
      this.messages
        .filter((m) => (m.message.status === 'delivered' || m.message.status === 'dead') && m.message.createdAt < cutoff)
        .slice(0, limit)
        .map((m) => m.message.id),
    );
    this.messages = this.messages.filter((m) => !doomed.has(m.message.id));
    this.attempts = this.attempts.filter((a) => !doomed.has(a.attempt.messageId));
    return doomed.size;
  }
}
