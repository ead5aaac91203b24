import type { OAuthProvider } from '../domain/oauth';

/** What the protocol client needs of one provider: its settings with the client secret opened. */
export interface OAuthClientConfig {
  provider: OAuthProvider;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  /** null = the provider's default (OpenID providers: discovery from the issuer). */
  issuer: string | null;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  userInfoUrl: string | null;
}

/** The account the provider vouched for at the end of a successful code exchange. */
export interface OAuthProfile {
  /** Who vouched: the OpenID issuer, or the provider's fixed origin (GitHub, Discord). */
  issuer: string;
  /** The provider's stable account id (OpenID `sub`, GitHub's numeric id, Discord's snowflake). */
  subject: string;
  /** The address the provider reports, or null when it reports none. */
  email: string | null;
  /** True only when the provider itself says the address is verified. */
  emailVerified: boolean;
}

/** Thrown by an OAuthProviderClient for any failure of the provider: refused code, bad ID token, outage. */
export class OAuthProviderError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'OAuthProviderError';
  }
}

/**
 * The OAuth 2.0 / OpenID Connect protocol towards identity providers: everything that speaks HTTP
 * to them lives behind this port, so core stays free of I/O. Implementations use PKCE (S256)
 * towards every provider and, for OpenID providers, send the nonce and validate the ID token.
 */
export interface OAuthProviderClient {
  /**
   * The provider's authorization URL for this sign-in, carrying `state`, the S256 `codeChallenge`,
   * `redirectUri` (the service's callback), the configured scopes and, for OpenID providers, `nonce`.
   * @throws OAuthProviderError when the provider's metadata cannot be obtained.
   */
  authorizationUrl(request: { config: OAuthClientConfig; redirectUri: string; state: string; codeChallenge: string; nonce: string }): Promise<string>;
  /**
   * Redeems the authorization `code` (with the PKCE `codeVerifier` and the same `redirectUri`),
   * validates what comes back (OpenID: ID token signature, issuer, audience, expiry and `nonce`)
   * and reads the account. `iss` is the callback's RFC 9207 issuer parameter, when sent.
   * @throws OAuthProviderError on any refusal or malformed answer of the provider.
   */
  exchange(request: { config: OAuthClientConfig; redirectUri: string; code: string; state: string; iss?: string; codeVerifier: string; nonce: string }): Promise<OAuthProfile>;
}
