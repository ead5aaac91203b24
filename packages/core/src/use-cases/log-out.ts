import type { TenantScope } from '../domain/environment';
import { sha256Hex } from '../domain/secrets';
import type { AuthDeps, OptionalDeps } from './deps';
import { emitEvent } from './events/record-event';

/** `POST /api/auth/logout`: revokes the token's session if there is one; always succeeds (idempotent). */
export async function logOut(deps: Pick<AuthDeps, 'clock' | 'sessions'> & OptionalDeps<'events'>, scope: TenantScope, refreshToken: string): Promise<void> {
  const record = await deps.sessions.findRefreshToken(scope, sha256Hex(refreshToken));
  if (!record || record.sessionRevokedAt) return;
  await deps.sessions.revoke(scope, record.sessionId, deps.clock.now());
  const { userId, sessionId } = record;
  await emitEvent(deps, scope, { type: 'user.signed_out', userId, actor: { type: 'user', userId }, data: { sessionId } });
}
