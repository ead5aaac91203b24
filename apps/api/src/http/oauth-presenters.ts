import type { Environment, OAuthProviderConfig, SignInResult, User } from '@svc/core';
import { presentSignIn } from './second-factor-presenters';

/** Contract shape OAuthExchangeUser. */
function presentOAuthExchangeUser(user: User) {
  return { id: user.id, email: user.email, role: user.role, meta: user.meta, createdAt: user.createdAt.toISOString() };
}

/**
 * `POST /api/auth/oauth/token`: the bundle with `provider`; for a user with TOTP on, exactly the login's
 * challenge shape (docs/security.md), which the caller redeems at /api/auth/2fa/totp/verify.
 */
export function presentOAuthExchange(provider: string, result: SignInResult) {
  const shown = presentSignIn(result, presentOAuthExchangeUser);
  return result.twoFactorRequired ? shown : { ...shown, provider };
}

/** A provider's settings as the admin API shows them: never the client secret, sealed or not. */
export function presentOAuthProvider(config: OAuthProviderConfig, environment: Environment) {
  return {
    provider: config.provider,
    environment,
    enabled: config.enabled,
    clientId: config.clientId,
    clientSecretSet: true,
    scopes: config.scopes,
    redirectUrl: config.redirectUrl,
    issuer: config.issuer,
    authorizationUrl: config.authorizationUrl,
    tokenUrl: config.tokenUrl,
    userInfoUrl: config.userInfoUrl,
    createdAt: config.createdAt.toISOString(),
    updatedAt: config.updatedAt.toISOString(),
  };
}
