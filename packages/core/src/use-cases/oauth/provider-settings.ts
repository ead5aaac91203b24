import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { isOAuthProvider, oauthSecretContext, type OAuthProvider, type OAuthProviderConfig } from '../../domain/oauth';
import { oauthCallbackUrl } from '../../domain/service-paths';
import type { OAuthClientConfig } from '../../ports/oauth-provider-client';
import type { AuthDeps } from '../deps';

/**
 * The provider named by an initiate call, configured and enabled in the key's scope. Anything
 * else (unknown slug, never configured, disabled) is `400 validation_error` (docs/decisions.md#contract-clarifications).
 */
export async function enabledProvider(
  deps: Pick<AuthDeps, 'oauthProviders'>,
  scope: TenantScope,
  provider: string,
): Promise<OAuthProviderConfig> {
  const config = isOAuthProvider(provider) ? await deps.oauthProviders.find(scope, provider) : null;
  if (!config?.enabled) {
    throw new AuthError('validation_error', 'This sign-in provider is not configured or not enabled for the project environment.');
  }
  return config;
}

/** The settings as the protocol client needs them: the client secret opened for this one call. */
export function clientConfigOf(deps: Pick<AuthDeps, 'secretBox'>, scope: TenantScope, config: OAuthProviderConfig): OAuthClientConfig {
  return {
    provider: config.provider,
    clientId: config.clientId,
    clientSecret: deps.secretBox.open(config.sealedClientSecret, oauthSecretContext(scope, config.provider)),
    scopes: config.scopes,
    issuer: config.issuer,
    authorizationUrl: config.authorizationUrl,
    tokenUrl: config.tokenUrl,
    userInfoUrl: config.userInfoUrl,
  };
}

/**
 * The service's own callback (`GET /api/auth/oauth/{provider}/callback`) registered at the provider. It hangs off the
 * configured base URL, never the request's Host header.
 */
export function callbackUrlOf(deps: Pick<AuthDeps, 'settings'>, provider: OAuthProvider): string {
  return oauthCallbackUrl(deps.settings.issuer, provider);
}
