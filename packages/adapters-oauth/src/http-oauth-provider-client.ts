import { isOpenIdProvider, OAuthProviderError, type OAuthProfile, type OAuthProviderClient } from '@svc/core';
import type { Configuration } from 'openid-client';
import { openIdClient } from './openid-client-module';
import { discordProfile, gitHubProfile, openIdProfile } from './profiles';
import { PROVIDER_DEFAULTS } from './provider-defaults';
import { ServerConfigurations } from './server-configurations';

export interface HttpOAuthProviderClientOptions {
  /** Per request to a provider (default 10 s). */
  timeoutMs?: number;
  /** How long an OpenID discovery document is reused (default 10 min). */
  discoveryCacheSeconds?: number;
}

type ExchangeRequest = Parameters<OAuthProviderClient['exchange']>[0];

/**
 * The OAuthProviderClient over HTTP. openid-client 6 runs the protocol for every provider:
 * authorization URL, PKCE (S256) and the code grant, and for Google and `oidc` the nonce and
 * full ID-token validation (signature by the issuer's JWKS, iss, aud, exp, nonce). GitHub's and
 * Discord's profiles are plain REST resources, read with strict fetch code.
 */
export class HttpOAuthProviderClient implements OAuthProviderClient {
  private readonly timeoutMs: number;
  private readonly configurations: ServerConfigurations;

  constructor(options: HttpOAuthProviderClientOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.configurations = new ServerConfigurations({ timeoutMs: this.timeoutMs, discoveryCacheMs: (options.discoveryCacheSeconds ?? 600) * 1000 });
  }

  async authorizationUrl(request: Parameters<OAuthProviderClient['authorizationUrl']>[0]): Promise<string> {
    const { config, redirectUri, state, codeChallenge, nonce } = request;
    const client = await openIdClient();
    const configuration = await this.configurations.configurationFor(config);
    const params: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: config.scopes.join(' '),
      state,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
      ...(isOpenIdProvider(config.provider) ? { nonce } : {}),
    };
    return client.buildAuthorizationUrl(configuration, params).href;
  }

  async exchange(request: ExchangeRequest): Promise<OAuthProfile> {
    const configuration = await this.configurations.configurationFor(request.config);
    try {
      return await this.redeem(configuration, request);
    } catch (error) {
      if (error instanceof OAuthProviderError) throw error;
      throw new OAuthProviderError(`${request.config.provider}: the code exchange failed`, { cause: error });
    }
  }

  private async redeem(configuration: Configuration, request: ExchangeRequest): Promise<OAuthProfile> {
    const client = await openIdClient();
    const { config } = request;
    const openId = isOpenIdProvider(config.provider);
    // openid-client reads the authorization response from the callback URL it would have seen.
    const callback = new URL(request.redirectUri);
    for (const [name, value] of Object.entries({ code: request.code, state: request.state, iss: request.iss })) {
      if (value !== undefined) callback.searchParams.set(name, value);
    }
    const tokens = await client.authorizationCodeGrant(configuration, callback, {
      pkceCodeVerifier: request.codeVerifier,
      expectedState: request.state,
      ...(openId ? { expectedNonce: request.nonce, idTokenExpected: true } : {}),
    });
    const issuer = configuration.serverMetadata().issuer;
    if (openId) {
      const claims = tokens.claims() as Record<string, unknown>;
      const needsUserinfo = !claims.email && configuration.serverMetadata().userinfo_endpoint;
      const userinfo = needsUserinfo ? await client.fetchUserInfo(configuration, tokens.access_token, String(claims.sub)) : null;
      return openIdProfile(issuer, claims, userinfo as Record<string, unknown> | null);
    }
    const userInfoUrl = config.userInfoUrl ?? PROVIDER_DEFAULTS[config.provider]!.userInfoUrl;
    const read = config.provider === 'github' ? gitHubProfile : discordProfile;
    return read(issuer, userInfoUrl, tokens.access_token, this.timeoutMs);
  }
}
