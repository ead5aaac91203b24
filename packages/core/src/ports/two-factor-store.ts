import type { TenantScope } from '../domain/environment';
import type { TotpEnrollment } from '../domain/two-factor';

/**
 * Second-factor state of users: one TOTP enrollment per user and its recovery codes (stored as
 * hashes only). Every method is scoped to a tenant; a user id of another scope is never found.
 * The methods that accept a code are atomic compare-and-set steps, so a code is accepted once
 * however many requests present it at the same moment.
 */
export interface TwoFactorStore {
  /** The user's enrollment (pending or enabled), or null. */
  findTotp(scope: TenantScope, userId: string): Promise<TotpEnrollment | null>;
  /**
   * Starts or restarts setup: stores a `pending` enrollment with this sealed secret, replacing a
   * pending one. Refuses (false, nothing changed) when the user already has TOTP enabled: a
   * running second factor is only ever replaced through `removeTotp`.
   */
  beginTotp(scope: TenantScope, userId: string, setup: { sealedSecret: string; createdAt: Date }): Promise<boolean>;
  /**
   * Turns the pending enrollment that holds exactly `sealedSecret` on, sets `lastUsedStep` to
   * `usedStep` (the step of the code that proved it, so that code cannot sign in afterwards) and
   * replaces the user's recovery codes with `recoveryCodeHashes`, all in one atomic step. False
   * when there is no such pending enrollment (never started, restarted since, or already on).
   */
  enableTotp(scope: TenantScope, userId: string, enable: { sealedSecret: string; usedStep: number; recoveryCodeHashes: string[]; enabledAt: Date }): Promise<boolean>;
  /**
   * The replay guard: sets `lastUsedStep = step` only if the enrollment is enabled and `step` is
   * greater than `lastUsedStep` (or none was used yet). True for the caller whose update applied;
   * of concurrent calls with the same step exactly one gets true.
   */
  useTotpStep(scope: TenantScope, userId: string, step: number): Promise<boolean>;
  /**
   * Marks the user's unused recovery code with this hash used at `at`. True only for the caller
   * that used it; a used, unknown or foreign code answers false. Atomic.
   */
  useRecoveryCode(scope: TenantScope, userId: string, codeHash: string, at: Date): Promise<boolean>;
  /** How many of the user's recovery codes are still unused. */
  countRecoveryCodes(scope: TenantScope, userId: string): Promise<number>;
  /** Removes the enrollment and every recovery code of the user; false when there was none. */
  removeTotp(scope: TenantScope, userId: string): Promise<boolean>;
}
