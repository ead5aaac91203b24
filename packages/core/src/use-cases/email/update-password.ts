import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { sha256Hex } from '../../domain/secrets';
import type { AuthDeps } from '../deps';

export interface PasswordUpdateInput {
  /** The raw token from the reset link. */
  token: string;
  newPassword: string;
}

/**
 * Contract endpoint 9. Consumes the reset token (single use, this scope only), sets the new
 * password, and then ends everything the old password may have opened: every refresh session and
 * every open reset and magic-link token of the user. The reset proves the mailbox, so the address
 * becomes verified. A second factor stays on (DESIGN §4a).
 */
export async function updatePassword(
  deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions' | 'oneTimeTokens' | 'passwords'>,
  scope: TenantScope,
  input: PasswordUpdateInput,
): Promise<void> {
  const now = deps.clock.now();
  const consumed = await deps.oneTimeTokens.consume(scope, 'password_reset', sha256Hex(input.token), now);
  if (!consumed?.userId) throw new AuthError('invalid_reset_token');
  const userId = consumed.userId;
  // A user deleted after the mail went out has no password to set: the link is simply dead.
  if (!(await deps.users.setPassword(scope, userId, await deps.passwords.hash(input.newPassword)))) {
    throw new AuthError('invalid_reset_token');
  }
  await deps.users.markEmailVerified(scope, userId);
  await deps.sessions.revokeAllForUser(scope, userId, now);
  await deps.oneTimeTokens.revokeForUser(scope, userId, ['magic_link', 'password_reset'], now);
}
