import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import { isBanned, type User } from '../domain/user';
import type { AuthDeps } from './deps';
import { verifyAccessToken } from './verify-access-token';

/**
 * `GET /api/auth/me`: verifies the token, then loads the live user. Access tokens die with their
 * session (docs/security.md), so logout, replay revocation, password update and bans take effect here at once.
 */
export async function getMe(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'tokens' | 'sessions'>,
  scope: TenantScope,
  accessToken: string,
): Promise<User> {
  const claims = await verifyAccessToken(deps, scope, accessToken);
  const found = await deps.sessions.findLiveSession(scope, claims.sub, claims.sid);
  if (!found) throw new AuthError('invalid_token');
  if (isBanned(found.user)) throw new AuthError('user_banned');
  if (!found.sessionActive) throw new AuthError('invalid_token');
  return found.user;
}
