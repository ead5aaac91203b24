import type { Environment } from './environment';
import type { User } from './user';

/**
 * Scopes the hosted OIDC provider knows (docs/decisions.md#hosted-oidc-provider). `offline_access` asks for a refresh token;
 * OpenID Connect Core §11 lets it through only with `prompt=consent` (or no prompt at all).
 */
export const OIDC_SCOPES = ['openid', 'profile', 'email', 'offline_access'] as const;
export type OidcScope = (typeof OIDC_SCOPES)[number];

/** Claims released per scope; `sub` always. */
export const OIDC_SCOPE_CLAIMS: Readonly<Record<'openid' | 'email' | 'profile', readonly string[]>> = {
  openid: ['sub'],
  email: ['email', 'email_verified'],
  profile: ['name'],
};

/** The login page's `request_token` lives 10 minutes and works once. */
export const OIDC_REQUEST_TOKEN_TTL_SECONDS = 10 * 60;

/** A relying party registered for one environment of a project (the OpenAPI document). */
export interface OidcClient {
  clientId: string;
  projectId: string;
  /** A flow's environment is its client's environment (docs/decisions.md#contract-clarifications): users and keys come from it. */
  environment: Environment;
  /** Shown to the user as `app_name` on the project's login page. */
  name: string;
  /** Compared exactly with the authorization request's redirect_uri. */
  redirectUris: string[];
  /** Where RP-initiated logout may send the browser afterwards (exact match). */
  postLogoutRedirectUris: string[];
  /** Public clients (SPAs, native apps) have no secret and must use PKCE. */
  public: boolean;
  /** SHA-256 of the client secret (hex); null for public clients. The secret itself is shown once. */
  secretHash: string | null;
  createdAt: Date;
}

/** The claims a user releases, before filtering by granted scope: `name` only when meta has one. */
export function oidcClaimsOf(user: User): Record<string, unknown> {
  const name = typeof user.meta.name === 'string' && user.meta.name.trim() ? user.meta.name : undefined;
  return { sub: user.id, email: user.email, email_verified: user.emailVerified, ...(name ? { name } : {}) };
}

/**
 * The customer's login page for one authorization: `oidcLoginUrl` with `request_token`,
 * `app_name` and `scope` (space-separated) in its query; the page's own query is kept.
 */
export function oidcLoginPageUrl(loginUrl: string, request: { requestToken: string; appName: string; scopes: readonly string[] }): string {
  const url = new URL(loginUrl);
  url.searchParams.set('request_token', request.requestToken);
  url.searchParams.set('app_name', request.appName);
  url.searchParams.set('scope', request.scopes.join(' '));
  return url.href;
}
