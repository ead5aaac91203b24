import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { OAuthIdentity } from '../../domain/oauth';
import type { Passkey } from '../../domain/passkey';
import type { User } from '../../domain/user';
import type { SessionHistoryEntry } from '../../ports/session-store';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import { userNotFound } from './manage-users';

/** Sessions shown with a user: the newest ones. Older ones are still revoked by revoke-all. */
export const USER_DETAIL_SESSIONS = 50;

/** One user as an operator inspects them. Parts of capabilities the service lacks are empty. */
export interface UserDetail {
  user: User;
  totpEnabled: boolean;
  passkeys: Passkey[];
  identities: OAuthIdentity[];
  sessions: SessionHistoryEntry[];
}

export async function getUserDetail(deps: Pick<AuthDeps, 'users' | 'sessions'> & OptionalDeps<'twoFactor' | 'passkeys' | 'identities'>, scope: TenantScope, userId: string): Promise<UserDetail> {
  const user = await deps.users.findById(scope, userId);
  if (!user) throw userNotFound();
  const [totp, passkeys, identities, sessions] = await Promise.all([
    deps.twoFactor?.findTotp(scope, userId) ?? null,
    deps.passkeys?.listForUser(scope, userId) ?? [],
    deps.identities?.listForUser(scope, userId) ?? [],
    deps.sessions.listHistory(scope, userId, { limit: USER_DETAIL_SESSIONS }),
  ]);
  return { user, totpEnabled: totp?.status === 'enabled', passkeys, identities, sessions };
}

/** Revokes one session of the user; 404 not_found when the user has no such session. */
export async function revokeUserSession(deps: Pick<AuthDeps, 'clock' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string, sessionId: string) {
  const session = await deps.sessions.findInHistory(scope, userId, sessionId);
  if (!session) throw new AuthError('not_found', 'Session not found.');
  await atomically(deps, async () => {
    await deps.sessions.revoke(scope, sessionId, deps.clock.now());
    await emitEvent(deps, scope, { type: 'session.revoked', userId, data: { sessionId, why: 'session_ended' } });
  });
}

/** Revokes every session of the user (signs them out everywhere); answers how many were active. */
export async function revokeAllUserSessions(deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string) {
  if (!(await deps.users.findById(scope, userId))) throw userNotFound();
  return atomically(deps, async () => {
    const revoked = await deps.sessions.revokeAllForUser(scope, userId, deps.clock.now());
    if (revoked > 0) await emitEvent(deps, scope, { type: 'session.revoked', userId, data: { why: 'session_ended', count: revoked } });
    return { revoked };
  });
}
