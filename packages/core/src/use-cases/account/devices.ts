import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { SessionSummary } from '../../domain/session';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import type { CurrentSession } from './current-session';

type DeviceDeps = Pick<AuthDeps, 'clock' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>;

/** One of the user's sessions, marked when it is the caller's own. */
export type DeviceSession = SessionSummary & { current: boolean };

/** GET /api/auth/sessions: the user's usable sessions, most recently used first. */
export async function listSessions(deps: DeviceDeps, scope: TenantScope, current: CurrentSession): Promise<DeviceSession[]> {
  const sessions = await deps.sessions.listForUser(scope, current.user.id, deps.clock.now());
  return sessions.map((session) => ({ ...session, current: session.id === current.sessionId }));
}

/**
 * DELETE /api/auth/sessions/{id}: signs one of the user's own sessions out (its refresh token
 * and access tokens stop working at once); another user's or an unknown id is 404 not_found.
 * Ending the caller's own session is allowed: it is a logout.
 */
export async function revokeSession(deps: DeviceDeps, scope: TenantScope, current: CurrentSession, sessionId: string): Promise<void> {
  const session = await deps.sessions.findSession(scope, sessionId);
  if (!session || session.userId !== current.user.id) throw new AuthError('not_found', 'Session not found.');
  await atomically(deps, async () => {
    await deps.sessions.revoke(scope, sessionId, deps.clock.now());
    await emitEvent(deps, scope, { type: 'session.revoked', userId: current.user.id, actor: { type: 'user', userId: current.user.id }, data: { sessionId, why: 'session_ended' } });
  });
}

/** Reports sessions the user ended in one go (the others, or all). */
async function reportEnded(deps: DeviceDeps, scope: TenantScope, current: CurrentSession, count: number): Promise<number> {
  if (count > 0) {
    await emitEvent(deps, scope, { type: 'session.revoked', userId: current.user.id, actor: { type: 'user', userId: current.user.id }, data: { why: 'session_ended', count } });
  }
  return count;
}

/** POST /api/auth/sessions/revoke-others: every other session of the user ends; this one stays. */
export async function revokeOtherSessions(deps: DeviceDeps, scope: TenantScope, current: CurrentSession): Promise<number> {
  return atomically(deps, async () => reportEnded(deps, scope, current, await deps.sessions.revokeAllForUser(scope, current.user.id, deps.clock.now(), { except: current.sessionId })));
}

/** POST /api/auth/logout-all: every session of the user ends, this one too. */
export async function logOutEverywhere(deps: DeviceDeps, scope: TenantScope, current: CurrentSession): Promise<number> {
  return atomically(deps, async () => reportEnded(deps, scope, current, await deps.sessions.revokeAllForUser(scope, current.user.id, deps.clock.now())));
}
