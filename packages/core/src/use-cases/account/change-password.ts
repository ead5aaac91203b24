import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { needsCurrentPassword } from '../../domain/user';
import { acceptNewPassword } from '../accept-new-password';
import { enqueueNotice } from '../email/enqueue-link-mail';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import type { AuthDeps, OptionalDeps } from '../deps';
import type { CurrentSession } from './current-session';
import { requireRecentSignIn, type Reauthentication, type RecentSignInDeps } from './recent-sign-in';

export interface ChangePasswordInput extends Reauthentication {
  newPassword: string;
}

export type ChangePasswordDeps = RecentSignInDeps & Pick<AuthDeps, 'users' | 'random'> & OptionalDeps<'commonPasswords' | 'oneTimeTokens' | 'outbox' | 'secretBox' | 'events' | 'unitOfWork'>;

/**
 * POST /api/auth/password/change: the current password (when the user has one, see
 * needsCurrentPassword) proves the change; the new one must pass the project's password rules.
 * Every other session of the user ends and open reset links die; this session stays signed in.
 * With mail, the user is sent a notice.
 */
export async function changePassword(deps: ChangePasswordDeps, scope: TenantScope, project: Project, current: CurrentSession, input: ChangePasswordInput): Promise<void> {
  acceptNewPassword(deps, project, input.newPassword, 'newPassword');
  if (needsCurrentPassword(current.user) && input.currentPassword === undefined) {
    throw new AuthError('validation_error', 'currentPassword is required.');
  }
  await requireRecentSignIn(deps, scope, project, current, input);
  const now = deps.clock.now();
  const passwordHash = await deps.passwords.hash(input.newPassword);
  // The change, its records and the notice are one unit of work (the hash is made above, outside it).
  await atomically(deps, async () => {
    if (!(await deps.users.setPassword(scope, current.user.id, passwordHash))) throw new AuthError('invalid_token');
    const revoked = await deps.sessions.revokeAllForUser(scope, current.user.id, now, { except: current.sessionId });
    await deps.oneTimeTokens?.revokeForUser(scope, current.user.id, ['password_reset'], now);
    const actor = { type: 'user', userId: current.user.id } as const;
    await emitEvent(deps, scope, { type: 'password.changed', userId: current.user.id, actor, data: {} });
    if (revoked > 0) await emitEvent(deps, scope, { type: 'session.revoked', userId: current.user.id, actor, data: { why: 'password_changed', count: revoked } });
    const { clock, random, outbox, secretBox } = deps;
    if (outbox && secretBox) await enqueueNotice({ clock, random, outbox, secretBox }, scope, project, current.user.email, 'password_changed');
  });
}
