import type { OAuthProvider } from '../domain/oauth';
import { pkceChallenge } from '../domain/pkce';
import { OAuthProviderError, type OAuthProfile, type OAuthProviderClient } from '../ports/oauth-provider-client';

interface Authorization {
  provider: OAuthProvider;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string;
}

/** The account a test signs in with at the fake provider. */
export type FakeAccount = { subject: string } & Partial<Omit<OAuthProfile, 'subject'>>;

/**
 * An identity provider in process memory, for core's tests and the in-memory deps. It keeps the
 * protocol's rules that matter to core: a code is single-use and bound to the client, the
 * redirect URI, the PKCE challenge (S256) and the nonce of its authorization request. End-to-end
 * tests use the real adapter against providers on loopback instead (packages/adapters-oauth).
 */
export class FakeOAuthProviderClient implements OAuthProviderClient {
  static readonly ORIGIN = 'https://idp.fake.test';
  private readonly authorizations = new Map<string, Authorization>();
  private readonly codes = new Map<string, Authorization & { account: FakeAccount }>();
  private counter = 0;

  async authorizationUrl(request: Parameters<OAuthProviderClient['authorizationUrl']>[0]): Promise<string> {
    const { config, redirectUri, state, codeChallenge, nonce } = request;
    this.authorizations.set(state, { provider: config.provider, clientId: config.clientId, redirectUri, codeChallenge, nonce });
    const url = new URL(`${FakeOAuthProviderClient.ORIGIN}/${config.provider}/authorize`);
    const params = { client_id: config.clientId, redirect_uri: redirectUri, response_type: 'code', scope: config.scopes.join(' ') };
    for (const [name, value] of Object.entries({ ...params, state, code_challenge: codeChallenge, code_challenge_method: 'S256', nonce })) {
      url.searchParams.set(name, value);
    }
    return url.href;
  }

  /** The user signs in at the provider: the query the browser then carries to the callback. */
  approve(authorizationUrl: string, account: FakeAccount): { code: string; state: string } {
    const state = new URL(authorizationUrl).searchParams.get('state') ?? '';
    const authorization = this.authorizations.get(state);
    if (!authorization) throw new Error('FakeOAuthProviderClient: no such authorization request');
    const code = `fake-code-${++this.counter}`;
    this.codes.set(code, { ...authorization, account });
    return { code, state };
  }

  async exchange(request: Parameters<OAuthProviderClient['exchange']>[0]): Promise<OAuthProfile> {
    const grant = this.codes.get(request.code);
    this.codes.delete(request.code);
    if (!grant) throw new OAuthProviderError('invalid_grant: unknown or used code');
    const mismatch =
      grant.provider !== request.config.provider ||
      grant.clientId !== request.config.clientId ||
      grant.redirectUri !== request.redirectUri ||
      grant.codeChallenge !== pkceChallenge(request.codeVerifier) ||
      grant.nonce !== request.nonce;
    if (mismatch) throw new OAuthProviderError('invalid_grant: code not issued for this request');
    const { account } = grant;
    return {
      issuer: account.issuer ?? `${FakeOAuthProviderClient.ORIGIN}/${grant.provider}`,
      subject: account.subject,
      email: account.email ?? null,
      emailVerified: account.emailVerified ?? false,
    };
  }
}
