import { sameScope, type TenantScope } from '../domain/environment';
import type { NewOneTimeToken, OneTimePurpose, OneTimeToken } from '../domain/one-time-token';
import type { OneTimeTokenStore } from '../ports/one-time-token-store';

type Stored = OneTimeToken & TenantScope;

/** Reference OneTimeTokenStore in process memory; no await inside a step, so each is atomic. */
export class InMemoryOneTimeTokenStore implements OneTimeTokenStore {
  private readonly tokens = new Map<string, Stored>();

  async issue(scope: TenantScope, token: NewOneTimeToken, options: { supersede?: boolean } = {}): Promise<void> {
    if (this.tokens.has(token.tokenHash)) throw new Error('duplicate one-time token');
    if (options.supersede && token.userId !== null) {
      for (const t of this.tokens.values()) {
        if (sameScope(t, scope) && t.purpose === token.purpose && t.userId === token.userId && !t.consumedAt) {
          t.consumedAt = token.createdAt;
        }
      }
    }
    this.tokens.set(token.tokenHash, {
      ...structuredClone(token),
      ...scope,
      consumedAt: null,
      failedAttempts: 0,
    });
  }

  async consume(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, now: Date): Promise<OneTimeToken | null> {
    const token = this.open(scope, purpose, tokenHash, now);
    if (!token) return null;
    const before = this.strip(token);
    token.consumedAt = now;
    return before;
  }

  async find(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string): Promise<OneTimeToken | null> {
    const token = this.tokens.get(tokenHash);
    return token && sameScope(token, scope) && token.purpose === purpose ? this.strip(token) : null;
  }

  async findOpenForUser(scope: TenantScope, purpose: OneTimePurpose, userId: string, now: Date): Promise<OneTimeToken | null> {
    const open = [...this.tokens.values()]
      .filter((t) => sameScope(t, scope) && t.purpose === purpose && t.userId === userId && !t.consumedAt && t.expiresAt > now)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return open.length ? this.strip(open[0]) : null;
  }

  async recordFailedAttempt(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, options: { maxAttempts: number; now: Date }): Promise<number> {
    const token = this.open(scope, purpose, tokenHash, options.now);
    if (!token) return 0;
    token.failedAttempts += 1;
    if (token.failedAttempts >= options.maxAttempts) token.consumedAt = options.now;
    return Math.max(0, options.maxAttempts - token.failedAttempts);
  }

  async revokeForUser(scope: TenantScope, userId: string, purposes: OneTimePurpose[], at: Date): Promise<number> {
    let count = 0;
    for (const t of this.tokens.values()) {
      if (sameScope(t, scope) && t.userId === userId && purposes.includes(t.purpose) && !t.consumedAt) {
        t.consumedAt = at;
        count += 1;
      }
    }
    return count;
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    const expired = [...this.tokens.values()].filter((t) => t.expiresAt <= now).slice(0, limit);
    expired.forEach((t) => this.tokens.delete(t.tokenHash));
    return expired.length;
  }

  private open(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, now: Date): Stored | null {
    const token = this.tokens.get(tokenHash);
    if (!token || !sameScope(token, scope) || token.purpose !== purpose) return null;
    return token.consumedAt || token.expiresAt <= now ? null : token;
  }

  private strip(token: Stored): OneTimeToken {
    const { projectId: _p, environment: _e, ...rest } = token;
    return structuredClone(rest);
  }
}
