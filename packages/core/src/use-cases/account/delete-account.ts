import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { ONE_TIME_PURPOSES } from '../../domain/one-time-token';
import type { Project } from '../../domain/project';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import type { CurrentSession } from './current-session';
import { requireRecentSignIn, type Reauthentication, type RecentSignInDeps } from './recent-sign-in';

export type DeleteAccountDeps = RecentSignInDeps & Pick<AuthDeps, 'users'> & OptionalDeps<'oneTimeTokens' | 'events' | 'unitOfWork'>;

/**
 * DELETE /api/auth/account (recent sign-in): the user's open single-use tokens die, then the
 * user row goes, and with it, in that one statement, everything stored for the user (sessions
 * and their refresh tokens, TOTP and recovery codes, passkeys, linked identities, known clients;
 * the schema's foreign keys cascade). The user no longer counts toward the plan's limit.
 */
export async function deleteAccount(deps: DeleteAccountDeps, scope: TenantScope, project: Project, current: CurrentSession, proof: Reauthentication = {}): Promise<void> {
  await requireRecentSignIn(deps, scope, project, current, proof);
  await atomically(deps, async () => {
    await deps.oneTimeTokens?.revokeForUser(scope, current.user.id, [...ONE_TIME_PURPOSES], deps.clock.now());
    if (!(await deps.users.delete(scope, current.user.id))) throw new AuthError('invalid_token');
    await emitEvent(deps, scope, { type: 'user.deleted', userId: current.user.id, actor: { type: 'user', userId: current.user.id }, data: {} });
  });
}
