import type { TenantScope } from '../domain/environment';
import type { NewOneTimeToken, OneTimePurpose, OneTimeToken } from '../domain/one-time-token';

export interface OneTimeTokenStore {
  /**
   * Stores a new token. With `supersede`, every open (unconsumed) token of the same purpose and
   * user in the scope is consumed in the same atomic step, so only the newest one works.
   */
  issue(scope: TenantScope, token: NewOneTimeToken, options?: { supersede?: boolean }): Promise<void>;
  /**
   * The single-use step: atomically marks the token consumed at `now` if it exists in the scope
   * with this purpose, is unconsumed and has not expired at `now`, and returns it (as it was before
   * consumption); otherwise null. Of concurrent consumes of one token exactly one gets it.
   */
  consume(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, now: Date): Promise<OneTimeToken | null>;
  /**
   * The user's newest token of this purpose in the scope that is unconsumed and unexpired at
   * `now`, read without consuming it; null when there is none. With `supersede` on issue there is
   * at most one (an e-mail code is found this way: by its user, not by a secret).
   */
  findOpenForUser(scope: TenantScope, purpose: OneTimePurpose, userId: string, now: Date): Promise<OneTimeToken | null>;
  /** Reads a token of this purpose in the scope without consuming it (null when unknown). */
  find(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string): Promise<OneTimeToken | null>;
  /**
   * Records one wrong answer against an open token; when the count reaches `maxAttempts` the token
   * is consumed (dead). Returns the attempts left (0 when dead or unknown). Atomic per call.
   */
  recordFailedAttempt(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, options: { maxAttempts: number; now: Date }): Promise<number>;
  /** Consumes every open token of the user with one of these purposes; returns how many. */
  revokeForUser(scope: TenantScope, userId: string, purposes: OneTimePurpose[], at: Date): Promise<number>;
  /**
   * Housekeeping over every tenant (the janitor; takes no scope): deletes up to `limit` tokens of
   * any purpose with `expiresAt <= now`, consumed or not (magic links, resets, exchange codes,
   * second-factor and WebAuthn challenges, OAuth states); none of them can be used once expired.
   * Answers how many.
   */
  deleteExpired(now: Date, limit: number): Promise<number>;
}
