import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { isOAuthProvider, oauthSecretContext, oauthSettingsEnvironments, type OAuthProvider, type OAuthProviderConfig } from '../../domain/oauth';
import { oauthCallbackUrl } from '../../domain/service-paths';
import type { OAuthClientConfig } from '../../ports/oauth-provider-client';
import type { AuthDeps } from '../deps';

/** A provider's settings and the scope they are stored in (Production's, for a Sandbox that borrows them). */
interface ProviderSettings {
  config: OAuthProviderConfig;
  storedIn: TenantScope;
}

/**
 * The settings that apply to sign-ins with `provider` in `scope`: the scope's own, else those it
 * falls back to (oauthSettingsEnvironments); null when there are none.
 */
export async function providerSettings(deps: Pick<AuthDeps, 'oauthProviders'>, scope: TenantScope, provider: OAuthProvider): Promise<ProviderSettings | null> {
  for (const environment of oauthSettingsEnvironments(scope.environment)) {
    const storedIn: TenantScope = { projectId: scope.projectId, environment };
    const config = await deps.oauthProviders.find(storedIn, provider);
    if (config) return { config, storedIn };
  }
  return null;
}

/**
 * The provider named by an initiate call, configured (or borrowed from Production, for Sandbox)
 * and enabled for the key's scope. Anything else (unknown slug, never configured, disabled) is
 * `400 validation_error`.
 */
export async function enabledProvider(deps: Pick<AuthDeps, 'oauthProviders'>, scope: TenantScope, provider: string): Promise<ProviderSettings> {
  const settings = isOAuthProvider(provider) ? await providerSettings(deps, scope, provider) : null;
  if (!settings?.config.enabled) {
    throw new AuthError('validation_error', 'This sign-in provider is not configured or not enabled for the project environment.');
  }
  return settings;
}

/** The settings as the protocol client needs them: the client secret opened (under the scope it was sealed in) for this one call. */
export function clientConfigOf(deps: Pick<AuthDeps, 'secretBox'>, { config, storedIn }: ProviderSettings): OAuthClientConfig {
  const scope = storedIn;
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
