import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { RECOVERY_CODE_COUNT, TOTP_SECRET_BYTES, hashRecoveryCode, newRecoveryCode, toBase32, totpSecretContext } from '../../domain/two-factor';
import type { User } from '../../domain/user';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import { acceptTotpCode, matchTotpStep } from './second-factor-codes';

type TotpDeps = Pick<AuthDeps, 'clock' | 'random' | 'secretBox' | 'totp' | 'twoFactor'> & OptionalDeps<'events' | 'unitOfWork'>;

/**
 * POST /api/auth/2fa/totp/start: a new secret, sealed at rest, pending until confirmed. Starting
 * again before confirming replaces the pending secret; with TOTP already on it is refused.
 */
export async function startTotp(deps: TotpDeps, scope: TenantScope, project: Project, user: User): Promise<{ secret: string; otpauthUrl: string }> {
  const secret = toBase32(deps.random.bytes(TOTP_SECRET_BYTES));
  const sealedSecret = deps.secretBox.seal(secret, totpSecretContext(scope, user.id));
  if (!(await deps.twoFactor.beginTotp(scope, user.id, { sealedSecret, createdAt: deps.clock.now() }))) {
    throw new AuthError('validation_error', 'TOTP is already enabled; disable it before setting it up again.');
  }
  return { secret, otpauthUrl: deps.totp.keyUri({ secret, issuer: project.name, account: user.email }) };
}

/**
 * POST /api/auth/2fa/totp/confirm: a code from the authenticator proves the secret arrived; TOTP
 * is switched on with 10 new recovery codes, returned this once and stored only as hashes. The
 * confirming code's step counts as used, so it cannot also answer a login challenge.
 */
export async function confirmTotp(deps: TotpDeps, scope: TenantScope, user: User, code: string): Promise<{ recoveryCodes: string[] }> {
  const enrollment = await deps.twoFactor.findTotp(scope, user.id);
  if (enrollment?.status === 'enabled') throw new AuthError('validation_error', 'TOTP is already enabled.');
  if (!enrollment) throw new AuthError('validation_error', 'Start TOTP setup first (POST /api/auth/2fa/totp/start).');
  const usedStep = matchTotpStep(deps, scope, enrollment, code);
  if (usedStep === null) throw new AuthError('invalid_totp_code');
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => newRecoveryCode(deps.random.bytes(7)));
  await atomically(deps, async () => {
    const enabled = await deps.twoFactor.enableTotp(scope, user.id, {
      sealedSecret: enrollment.sealedSecret,
      usedStep,
      recoveryCodeHashes: recoveryCodes.map(hashRecoveryCode),
      enabledAt: deps.clock.now(),
    });
    // Lost a race with a restart (new secret) or another confirm: this code proved the old secret.
    if (!enabled) throw new AuthError('validation_error', 'TOTP setup changed meanwhile; start it again.');
    await emitEvent(deps, scope, { type: 'totp.enabled', userId: user.id, actor: { type: 'user', userId: user.id }, data: {} });
  });
  return { recoveryCodes };
}

/**
 * POST /api/auth/2fa/totp/disable: needs a current TOTP code (not a recovery code), accepted
 * once like any other, so a stolen access token alone cannot remove the second factor.
 */
export async function disableTotp(deps: TotpDeps, scope: TenantScope, user: User, code: string): Promise<void> {
  const enrollment = await deps.twoFactor.findTotp(scope, user.id);
  if (enrollment?.status !== 'enabled') throw new AuthError('validation_error', 'TOTP is not enabled.');
  if (!(await acceptTotpCode(deps, scope, enrollment, code))) throw new AuthError('invalid_totp_code');
  await atomically(deps, async () => {
    await deps.twoFactor.removeTotp(scope, user.id);
    await emitEvent(deps, scope, { type: 'totp.disabled', userId: user.id, actor: { type: 'user', userId: user.id }, data: {} });
  });
}
