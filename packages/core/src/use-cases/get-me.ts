import type { TenantScope } from '../domain/environment';
import type { User } from '../domain/user';
import { currentSession } from './account/current-session';
import type { AuthDeps } from './deps';

/**
 * `GET /api/auth/me`: verifies the token, then loads the live user. Access tokens die with their
 * session (docs/security.md), so logout, replay revocation, password update and bans take effect here at once.
 */
export async function getMe(deps: Pick<AuthDeps, 'settings' | 'clock' | 'tokens' | 'sessions'>, scope: TenantScope, accessToken: string): Promise<User> {
  return (await currentSession(deps, scope, accessToken)).user;
}
