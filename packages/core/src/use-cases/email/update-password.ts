import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import type { AuthDeps, OptionalDeps } from '../deps';
import { acceptNewPassword } from '../accept-new-password';
import { proveMailbox, type MailboxProofDeps } from '../prove-mailbox';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

export interface PasswordUpdateInput {
  /** The raw token from the reset link. */
  token: string;
  newPassword: string;
}

/**
 * `POST /api/auth/password/update`. Consumes the reset token (single use, this scope only), sets the new
 * password, and then ends everything the old password may have opened: every refresh session, the
 * clients known from earlier sign-ins, and every open reset and magic-link token of the user. A second factor stays on (docs/security.md) once
 * the address is verified. The reset link proves the mailbox: on an unverified account that proof
 * also ends whatever else was set up before it (TOTP, passkeys, identities; see proveMailbox),
 * keeping only the password set here.
 */
export async function updatePassword(
  deps: Pick<AuthDeps, 'passwords' | 'oneTimeTokens'> & OptionalDeps<'commonPasswords' | 'events' | 'unitOfWork'> & MailboxProofDeps,
  scope: TenantScope,
  project: Pick<Project, 'rejectCommonPasswords'>,
  input: PasswordUpdateInput,
): Promise<void> {
  // Before the token is consumed: a refused password leaves the link usable for another try.
  acceptNewPassword(deps, project, input.newPassword, 'newPassword');
  const now = deps.clock.now();
  const consumed = await deps.oneTimeTokens.consume(scope, 'password_reset', sha256Hex(input.token), now);
  if (!consumed?.userId) throw new AuthError('invalid_reset_token');
  // A user deleted after the mail went out has no password to set: the link is simply dead.
  const user = await deps.users.findById(scope, consumed.userId);
  if (!user) throw new AuthError('invalid_reset_token');
  const passwordHash = await deps.passwords.hash(input.newPassword);
  // The new password, what it ends and its records are one unit of work (the hash is made above, outside it).
  await atomically(deps, async () => {
    if (!(await deps.users.setPassword(scope, user.id, passwordHash))) throw new AuthError('invalid_reset_token');
    // The password first, the claim after: an interrupted reset never leaves a verified address
    // with the earlier holder's password.
    await proveMailbox(deps, scope, user, 'password_reset');
    const count = await deps.sessions.revokeAllForUser(scope, user.id, now);
    const actor = { type: 'user', userId: user.id } as const;
    await emitEvent(deps, scope, { type: 'password.reset', userId: user.id, actor, data: {} });
    if (count > 0) await emitEvent(deps, scope, { type: 'session.revoked', userId: user.id, actor, data: { why: 'password_reset', count } });
    // The clients that signed in with the old password are no longer exempt from the lockout.
    await deps.knownDevices?.forgetUser(scope, user.id);
    await deps.oneTimeTokens.revokeForUser(scope, user.id, ['magic_link', 'password_reset'], now);
  });
}
