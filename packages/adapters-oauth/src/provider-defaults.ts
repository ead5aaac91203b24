import type { OAuthProvider } from '@svc/core';

/** Where a provider lives when the operator overrides nothing (every URL can be overridden). */
export interface ProviderEndpoints {
  /** Who vouches for the account: the OpenID issuer, or the provider's origin for plain OAuth. */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** OpenID: userinfo endpoint. GitHub: the `/user` resource (its `/emails` hangs below). Discord: `/users/@me`. */
  userInfoUrl: string;
  jwksUrl?: string;
  /** Token endpoint client authentication the provider documents (default: client_secret_post). */
  tokenAuthMethods?: string[];
}

/**
 * Google's published endpoints (its discovery document at accounts.google.com), used without a
 * discovery round trip; GitHub's and Discord's OAuth 2.0 endpoints and profile resources. The
 * generic `oidc` provider has no defaults: it is discovered from its issuer.
 */
export const PROVIDER_DEFAULTS: Readonly<Partial<Record<OAuthProvider, ProviderEndpoints>>> = {
  google: {
    issuer: 'https://accounts.google.com',
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userInfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    tokenAuthMethods: ['client_secret_post', 'client_secret_basic'],
  },
  github: {
    issuer: 'https://github.com',
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userInfoUrl: 'https://api.github.com/user',
  },
  discord: {
    issuer: 'https://discord.com',
    authorizationUrl: 'https://discord.com/oauth2/authorize',
    tokenUrl: 'https://discord.com/api/oauth2/token',
    userInfoUrl: 'https://discord.com/api/users/@me',
  },
};
