import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { isBanned, type User } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { verifyAccessToken } from '../verify-access-token';

/** The signed-in user and the session its access token belongs to. */
export interface CurrentSession {
  user: User;
  sessionId: string;
}

/**
 * Verifies the access token, then loads the live user and checks its session, as /me does:
 * access tokens die with their session, so logout, replay revocation, password
 * changes and bans take effect at once. Every call acting for a signed-in user starts here.
 */
export async function currentSession(deps: Pick<AuthDeps, 'settings' | 'clock' | 'tokens' | 'sessions'>, scope: TenantScope, accessToken: string): Promise<CurrentSession> {
  const claims = await verifyAccessToken(deps, scope, accessToken);
  const found = await deps.sessions.findLiveSession(scope, claims.sub, claims.sid);
  if (!found) throw new AuthError('invalid_token');
  if (isBanned(found.user)) throw new AuthError('user_banned');
  if (!found.sessionActive) throw new AuthError('invalid_token');
  return { user: found.user, sessionId: claims.sid };
}
