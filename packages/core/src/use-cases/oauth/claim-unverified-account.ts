import type { TenantScope } from '../../domain/environment';
import type { AuthDeps } from '../deps';

/**
 * No pre-account takeover (DESIGN §8). Someone may have signed up with the victim's address
 * before the victim ever used the service; the address was never verified, so that person may
 * hold the password, a second factor, passkeys and live sessions. When a provider vouches for the
 * address, the account goes to the provider's user and everything the earlier holder could use
 * is ended: password cleared, TOTP and passkeys removed, sessions and open challenges revoked.
 * The address is marked verified last, so an interrupted claim is simply repeated next time.
 */
export async function claimUnverifiedAccount(
  deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions' | 'oneTimeTokens' | 'twoFactor' | 'passkeys'>,
  scope: TenantScope,
  userId: string,
): Promise<void> {
  const now = deps.clock.now();
  await deps.users.clearPassword(scope, userId);
  await deps.twoFactor.removeTotp(scope, userId);
  for (const passkey of await deps.passkeys.listForUser(scope, userId)) await deps.passkeys.remove(scope, userId, passkey.id);
  await deps.sessions.revokeAllForUser(scope, userId, now);
  await deps.oneTimeTokens.revokeForUser(scope, userId, ['two_factor', 'magic_link', 'password_reset'], now);
  await deps.users.markEmailVerified(scope, userId);
}
