import { sameScope, type TenantScope } from '../domain/environment';
import type { KnownDeviceStore } from '../ports/known-device-store';

interface Entry {
  scope: TenantScope;
  userId: string;
  fingerprint: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** Reference KnownDeviceStore in process memory; no await inside a step, so each step is atomic. */
export class InMemoryKnownDeviceStore implements KnownDeviceStore {
  private entries: Entry[] = [];

  async remember(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { at: Date; keep: number }): Promise<void> {
    for (const fingerprint of new Set(fingerprints)) {
      const found = this.find(scope, userId, fingerprint);
      if (found) found.lastSeenAt = new Date(options.at);
      else this.entries.push({ scope: { ...scope }, userId, fingerprint, firstSeenAt: new Date(options.at), lastSeenAt: new Date(options.at) });
    }
    const mine = this.entries.filter((e) => this.owns(e, scope, userId)).sort(newestFirst);
    const dropped = new Set(mine.slice(Math.max(0, options.keep)));
    this.entries = this.entries.filter((e) => !dropped.has(e));
  }

  async isKnown(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { seenSince: Date }): Promise<boolean> {
    return fingerprints.some((fingerprint) => {
      const found = this.find(scope, userId, fingerprint);
      return found !== undefined && found.lastSeenAt.getTime() >= options.seenSince.getTime();
    });
  }

  async forgetUser(scope: TenantScope, userId: string): Promise<void> {
    this.entries = this.entries.filter((e) => !this.owns(e, scope, userId));
  }

  async deleteSeenBefore(cutoff: Date, limit: number): Promise<number> {
    const old = new Set(this.entries.filter((e) => e.lastSeenAt.getTime() < cutoff.getTime()).slice(0, limit));
    this.entries = this.entries.filter((e) => !old.has(e));
    return old.size;
  }

  private find(scope: TenantScope, userId: string, fingerprint: string): Entry | undefined {
    return this.entries.find((e) => this.owns(e, scope, userId) && e.fingerprint === fingerprint);
  }

  private owns(entry: Entry, scope: TenantScope, userId: string): boolean {
    return sameScope(entry.scope, scope) && entry.userId === userId;
  }
}

/** Most recently seen first; ties by fingerprint, as the SQL adapter orders them. */
function newestFirst(a: Entry, b: Entry): number {
  return b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || (a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0);
}
