import type { ConsoleSignOutStore } from '../ports/console-sign-out-store';

/** Reference ConsoleSignOutStore in process memory. */
export class InMemoryConsoleSignOutStore implements ConsoleSignOutStore {
  private readonly ended = new Map<string, Date>();

  async add(sessionId: string, expiresAt: Date): Promise<void> {
    this.ended.set(sessionId, new Date(expiresAt));
  }

  async has(sessionId: string): Promise<boolean> {
    return this.ended.has(sessionId);
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    let deleted = 0;
    for (const [id, expiresAt] of this.ended) {
      if (deleted >= limit) break;
      if (expiresAt.getTime() <= now.getTime()) {
        this.ended.delete(id);
        deleted += 1;
      }
    }
    return deleted;
  }
}
