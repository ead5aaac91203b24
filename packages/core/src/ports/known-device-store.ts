import type { TenantScope } from '../domain/environment';

/**
 * The clients (address and device fingerprints, see `clientFingerprints`) that completed a
 * sign-in to a user, per tenant scope and user. Bounded per user; old entries are purged.
 */
export interface KnownDeviceStore {
  /**
   * Records a completed sign-in from `fingerprints` at `at` (first seen kept, last seen moved to
   * `at`), then keeps only the user's `keep` most recently seen. Concurrent calls for the same
   * fingerprint never fail.
   */
  remember(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { at: Date; keep: number }): Promise<void>;
  /** True when any of `fingerprints` is recorded for the user with a last sign-in at or after `seenSince`. */
  isKnown(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { seenSince: Date }): Promise<boolean>;
  /**
   * Forgets every client known to the user in this scope (the account changed hands, or its
   * password was set anew); other users and tenants keep theirs.
   */
  forgetUser(scope: TenantScope, userId: string): Promise<void>;
  /** Deletes up to `limit` entries last seen before `cutoff`, over every tenant; answers how many. */
  deleteSeenBefore(cutoff: Date, limit: number): Promise<number>;
}
