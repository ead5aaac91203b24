/**
 * Console sessions signed out before their expiry. A console session cookie carries its own
 * expiry and MAC (no row per session); this list is what makes a sign-out end a copied cookie
 * too, on every instance. Each record is kept until the session would have expired anyway.
 */
export interface ConsoleSignOutStore {
  /** Records that session `sessionId` ended, kept until `expiresAt`. Recording it again is harmless. */
  add(sessionId: string, expiresAt: Date): Promise<void>;
  /** True when session `sessionId` was signed out. */
  has(sessionId: string): Promise<boolean>;
  /** Deletes up to `limit` records with `expiresAt <= now`; answers how many. */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
