import type { TenantScope } from '../../domain/environment';
import { TOTP_DRIFT_STEPS, hashRecoveryCode, looksLikeTotpCode, totpSecretContext, type TotpEnrollment } from '../../domain/two-factor';
import type { AuthDeps } from '../deps';

type CodeDeps = Pick<AuthDeps, 'clock' | 'secretBox' | 'totp' | 'twoFactor'>;

/** The clear secret of an enrollment (SecretBox refuses one moved to another user or tenant). */
export function openTotpSecret(deps: Pick<AuthDeps, 'secretBox'>, scope: TenantScope, enrollment: TotpEnrollment): string {
  return deps.secretBox.open(enrollment.sealedSecret, totpSecretContext(scope, enrollment.userId));
}

/** The time step `code` belongs to (±1 step of drift), or null. Does not use the step. */
export function matchTotpStep(deps: Omit<CodeDeps, 'twoFactor'>, scope: TenantScope, enrollment: TotpEnrollment, code: string): number | null {
  if (!looksLikeTotpCode(code)) return null;
  const secret = openTotpSecret(deps, scope, enrollment);
  return deps.totp.matchStep({ secret, code: code.replace(/\s+/g, ''), at: deps.clock.now(), window: TOTP_DRIFT_STEPS });
}

/**
 * Accepts a current TOTP code once: the code must match a step within the drift window and that
 * step must be later than the last one used, which the store checks and sets atomically. So a
 * code never works twice, not even inside its own 30 seconds, nor an older code after a newer one.
 */
export async function acceptTotpCode(deps: CodeDeps, scope: TenantScope, enrollment: TotpEnrollment, code: string): Promise<boolean> {
  const step = matchTotpStep(deps, scope, enrollment, code);
  return step !== null && deps.twoFactor.useTotpStep(scope, enrollment.userId, step);
}

/** A TOTP code, or else one of the user's unused recovery codes (single use, atomic). */
export async function acceptSecondFactorCode(deps: CodeDeps, scope: TenantScope, enrollment: TotpEnrollment, code: string): Promise<boolean> {
  if (looksLikeTotpCode(code)) return acceptTotpCode(deps, scope, enrollment, code);
  return deps.twoFactor.useRecoveryCode(scope, enrollment.userId, hashRecoveryCode(code), deps.clock.now());
}
