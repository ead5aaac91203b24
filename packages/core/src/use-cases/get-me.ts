import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import { isBanned, type User } from '../domain/user';
import type { AuthDeps } from './deps';
import { verifyAccessToken } from './verify-access-token';

/**
 * Contract endpoint 5: verifies the token, then loads the live user. Access tokens die with their
 * session (DESIGN §4a), so logout, replay revocation, password update and bans take effect here at once.
 */
export async function getMe(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'tokens' | 'users' | 'sessions'>,
  scope: TenantScope,
  accessToken: string,
): Promise<User> {
  const claims = await verifyAccessToken(deps, scope, accessToken);
  const [user, active] = await Promise.all([
    deps.users.findById(scope, claims.sub),
    deps.sessions.isActive(scope, claims.sid),
  ]);
  if (!user) throw new AuthError('invalid_token');
  if (isBanned(user)) throw new AuthError('user_banned');
  if (!active) throw new AuthError('invalid_token');
  return user;
}
