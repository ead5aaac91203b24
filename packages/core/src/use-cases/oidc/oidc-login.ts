import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { hasOidcProvider, type Plan } from '../../domain/project';
import { OIDC_REQUEST_TOKEN_TTL_SECONDS, oidcLoginPageUrl, type OidcClient } from '../../domain/oidc';
import { isBanned, type User } from '../../domain/user';
import { newBearerSecret, sha256Hex } from '../../domain/secrets';
import type { OidcDeps } from './oidc-deps';

/**
 * Step one of the login-page hand-off: the provider sends the browser to the project's
 * `oidcLoginUrl` with a fresh `request_token` (256 random bits, stored as SHA-256, 10 minutes,
 * single use), the client's name as `app_name`, and the requested scopes. The token is stored in
 * the client's environment, so only an API key of that environment can redeem it (`POST /api/auth/oidc/grant`).
 */
export async function startOidcLogin(
  deps: Pick<OidcDeps, 'clock' | 'random' | 'oneTimeTokens'>,
  request: { loginUrl: string; client: Pick<OidcClient, 'clientId' | 'projectId' | 'environment' | 'name'>; uid: string; scopes: string[] },
): Promise<string> {
  const requestToken = newBearerSecret(deps.random);
  const now = deps.clock.now();
  const scope: TenantScope = { projectId: request.client.projectId, environment: request.client.environment };
  await deps.oneTimeTokens.issue(scope, {
    tokenHash: sha256Hex(requestToken),
    purpose: 'oidc_request',
    userId: null,
    data: { uid: request.uid, clientId: request.client.clientId },
    createdAt: now,
    expiresAt: new Date(now.getTime() + OIDC_REQUEST_TOKEN_TTL_SECONDS * 1000),
  });
  return oidcLoginPageUrl(request.loginUrl, { requestToken, appName: request.client.name, scopes: request.scopes });
}

/**
 * The live user behind an OIDC subject in the client's environment, or null when the user was
 * deleted or banned since: the provider then refuses the code, the refresh and userinfo.
 */
export async function loadOidcAccount(deps: Pick<OidcDeps, 'users'>, scope: TenantScope, userId: string): Promise<User | null> {
  const user = await deps.users.findById(scope, userId);
  return user && !isBanned(user) ? user : null;
}

/** The Pro-plan gate of the hosted OIDC provider, shared by `POST /api/auth/oidc/grant` and the issuer's own endpoints. */
export function assertOidcPlan(project: { plan: Plan }): void {
  if (!hasOidcProvider(project.plan)) throw new AuthError('plan_upgrade_required', 'The hosted OIDC provider needs the Pro plan.');
}
