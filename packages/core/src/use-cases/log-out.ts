import type { TenantScope } from '../domain/environment';
import { refreshTokenKey } from '../domain/refresh-token';
import type { AuthDeps, OptionalDeps } from './deps';
import { emitEvent } from './events/record-event';
import { atomically } from './atomically';

/** `POST /api/auth/logout`: revokes the token's session if there is one; always succeeds (idempotent). */
export async function logOut(deps: Pick<AuthDeps, 'clock' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, refreshToken: string): Promise<void> {
  const record = await deps.sessions.findRefreshToken(scope, refreshTokenKey(refreshToken));
  if (!record || record.sessionRevokedAt) return;
  const { userId, sessionId } = record;
  await atomically(deps, async () => {
    await deps.sessions.revoke(scope, sessionId, deps.clock.now());
    await emitEvent(deps, scope, { type: 'user.signed_out', userId, actor: { type: 'user', userId }, data: { sessionId } });
  });
}
