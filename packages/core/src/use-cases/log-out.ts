import type { TenantScope } from '../domain/environment';
import { sha256Hex } from '../domain/secrets';
import type { AuthDeps } from './deps';

/** `POST /api/auth/logout`: revokes the token's session if there is one; always succeeds (idempotent). */
export async function logOut(
  deps: Pick<AuthDeps, 'clock' | 'sessions'>,
  scope: TenantScope,
  refreshToken: string,
): Promise<void> {
  const record = await deps.sessions.findRefreshToken(scope, sha256Hex(refreshToken));
  if (record) await deps.sessions.revoke(scope, record.sessionId, deps.clock.now());
}
