import { isOpenIdProvider, OAuthProviderError, parseAppUrl, type OAuthClientConfig } from '@svc/core';
import type { Configuration, ServerMetadata } from 'openid-client';
import { openIdClient } from './openid-client-module';
import { PROVIDER_DEFAULTS } from './provider-defaults';

export interface ServerConfigurationOptions {
  timeoutMs: number;
  /** How long a discovered metadata document is reused. */
  discoveryCacheMs: number;
}

/**
 * Builds openid-client `Configuration`s for provider settings: Google from its published
 * endpoints (or discovery when an issuer is configured), `oidc` by discovery from its issuer
 * (cached), GitHub and Discord as plain OAuth 2.0 servers. Every configured URL overrides the
 * provider's. A fresh Configuration per call: it holds the client secret, which is not cached.
 */
export class ServerConfigurations {
  private readonly discovered = new Map<string, { metadata: ServerMetadata; expiresAt: number }>();

  constructor(private readonly options: ServerConfigurationOptions) {}

  async configurationFor(config: OAuthClientConfig): Promise<Configuration> {
    const client = await openIdClient();
    const insecure = usesLoopbackHttp(config);
    const base = await this.baseMetadata(config, insecure);
    const metadata: ServerMetadata = {
      ...base,
      authorization_endpoint: config.authorizationUrl ?? base.authorization_endpoint,
      token_endpoint: config.tokenUrl ?? base.token_endpoint,
      userinfo_endpoint: config.userInfoUrl ?? base.userinfo_endpoint,
    };
    // client_secret_basic is OpenID's default method; servers that list only others get a POST.
    const basic = metadata.token_endpoint_auth_methods_supported?.includes('client_secret_basic') === true;
    const auth = basic ? client.ClientSecretBasic(config.clientSecret) : client.ClientSecretPost(config.clientSecret);
    const configuration = new client.Configuration(metadata, config.clientId, config.clientSecret, auth);
    if (insecure) client.allowInsecureRequests(configuration);
    configuration.timeout = Math.ceil(this.options.timeoutMs / 1000);
    return configuration;
  }

  private async baseMetadata(config: OAuthClientConfig, insecure: boolean): Promise<ServerMetadata> {
    const defaults = PROVIDER_DEFAULTS[config.provider];
    if (isOpenIdProvider(config.provider) && config.issuer) return this.discover(config, insecure);
    if (!defaults) throw new OAuthProviderError(`${config.provider} needs an issuer to discover`);
    return {
      issuer: config.issuer ?? defaults.issuer,
      authorization_endpoint: defaults.authorizationUrl,
      token_endpoint: defaults.tokenUrl,
      userinfo_endpoint: defaults.userInfoUrl,
      ...(defaults.jwksUrl ? { jwks_uri: defaults.jwksUrl } : {}),
      ...(defaults.tokenAuthMethods ? { token_endpoint_auth_methods_supported: defaults.tokenAuthMethods } : {}),
    };
  }

  private async discover(config: OAuthClientConfig, insecure: boolean): Promise<ServerMetadata> {
    const issuer = config.issuer!;
    const cached = this.discovered.get(issuer);
    if (cached && cached.expiresAt > Date.now()) return cached.metadata;
    const client = await openIdClient();
    try {
      const found = await client.discovery(new URL(issuer), config.clientId, undefined, undefined, {
        execute: insecure ? [client.allowInsecureRequests] : [],
        timeout: Math.ceil(this.options.timeoutMs / 1000),
      });
      const metadata = { ...found.serverMetadata() };
      this.discovered.set(issuer, { metadata, expiresAt: Date.now() + this.options.discoveryCacheMs });
      return metadata;
    } catch (error) {
      throw new OAuthProviderError(`discovery of ${issuer} failed`, { cause: error });
    }
  }
}

/**
 * Plain http is for identity providers on this machine only (a local Keycloak, the tests): true
 * when a configured URL uses it on a loopback host; any other http URL is refused.
 */
function usesLoopbackHttp(config: OAuthClientConfig): boolean {
  const urls = [config.issuer, config.authorizationUrl, config.tokenUrl, config.userInfoUrl].filter((u): u is string => !!u);
  // parseAppUrl admits http only for loopback hosts (the same rule the admin API applies).
  const parsed = urls.map((u) => parseAppUrl(u));
  if (parsed.some((u) => u === null)) throw new OAuthProviderError('provider URLs must be https (http only on loopback)');
  return parsed.some((u) => u?.protocol === 'http:');
}
