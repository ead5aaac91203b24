import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { normalizeEmail } from '../../domain/user';
import type { UserPage } from '../../ports/user-repository';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';

export const MAX_USER_PAGE = 200;

export async function listUsers(
  deps: Pick<AuthDeps, 'users'>,
  scope: TenantScope,
  query: { email?: string; limit?: number; cursor?: string },
): Promise<UserPage> {
  const limit = Math.min(Math.max(query.limit ?? 50, 1), MAX_USER_PAGE);
  const email = query.email === undefined ? undefined : normalizeEmail(query.email);
  return deps.users.list(scope, { email, limit, cursor: query.cursor });
}

/** Bans the user and revokes every session, so refresh fails and /me answers user_banned at once. */
export async function banUser(deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'events'>, scope: TenantScope, userId: string) {
  const now = deps.clock.now();
  if (!(await deps.users.setBanned(scope, userId, now))) throw userNotFound();
  const count = await deps.sessions.revokeAllForUser(scope, userId, now);
  await emitEvent(deps, scope, { type: 'user.banned', userId, data: {} });
  if (count > 0) await emitEvent(deps, scope, { type: 'session.revoked', userId, data: { why: 'user_banned', count } });
}

export async function unbanUser(deps: Pick<AuthDeps, 'users'> & OptionalDeps<'events'>, scope: TenantScope, userId: string) {
  if (!(await deps.users.setBanned(scope, userId, null))) throw userNotFound();
  await emitEvent(deps, scope, { type: 'user.unbanned', userId, data: {} });
}

/** Deletes the user after revoking their sessions (their access tokens die at /me). */
export async function deleteUser(deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'events'>, scope: TenantScope, userId: string) {
  await deps.sessions.revokeAllForUser(scope, userId, deps.clock.now());
  if (!(await deps.users.delete(scope, userId))) throw userNotFound();
  await emitEvent(deps, scope, { type: 'user.deleted', userId, data: {} });
}

function userNotFound(): AuthError {
  return new AuthError('user_not_found');
}
