import { OIDC_REQUEST_TOKEN_TTL_SECONDS, OIDC_SCOPES, OIDC_SCOPE_CLAIMS, type Project } from '@svc/core';
import type { AdapterConstructor, Configuration, JWK, KoaContextWithOIDC } from 'oidc-provider';
import { ENVIRONMENT_METADATA } from './client-metadata';
import { findAccount, loginPageUrl, loginPolicy, type HandoffDeps } from './login-handoff';
import type { OidcModule } from './oidc-module';
import { logoutPage, postLogoutPage } from './pages';

/** Issuer paths (contract: `{issuer}/authorize`); the rest are ours to name and are in discovery. */
export const OIDC_ROUTES = {
  authorization: '/authorize',
  token: '/token',
  userinfo: '/userinfo',
  jwks: '/jwks',
  revocation: '/revoke',
  end_session: '/end-session',
} as const;

/** Sessions only carry a login from the login page to the resume; a day is plenty. */
const SESSION_TTL_SECONDS = 24 * 60 * 60;
/** RFC 6749 §4.1.2 recommends at most 10 minutes; one is enough for a server-side exchange. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60;

export interface ProviderConfigurationInput {
  mod: OidcModule;
  project: () => Project;
  deps: HandoffDeps;
  adapter: AdapterConstructor;
  jwks: { keys: JWK[] };
  cookieKey: string;
  /** The issuer's path: each project's cookies stay under its own issuer. */
  cookiePath: string;
}

/**
 * oidc-provider's configuration for one project's issuer (docs/decisions.md#hosted-oidc-provider): authorization code flow
 * only, PKCE (S256, the only method oidc-provider 9 has) required for public clients, exact
 * redirect_uri match (never omitted), refresh tokens only for offline_access and rotated on use,
 * RS256 only, scope claims in the ID token as well as at userinfo, errors as JSON.
 */
export function providerConfiguration(input: ProviderConfigurationInput): Configuration {
  const { project } = input;
  const lifetimes = project();
  return {
    adapter: input.adapter,
    jwks: input.jwks,
    clients: [],
    // Scoped to the issuer's path, so two projects' sessions in one browser never overwrite each other.
    cookies: {
      keys: [input.cookieKey],
      long: { httpOnly: true, sameSite: 'lax', path: input.cookiePath },
      short: { httpOnly: true, sameSite: 'lax', path: input.cookiePath },
    },
    scopes: [...OIDC_SCOPES],
    claims: { ...OIDC_SCOPE_CLAIMS, openid: [...OIDC_SCOPE_CLAIMS.openid] } as Configuration['claims'],
    conformIdTokenClaims: false,
    findAccount: findAccount(input.deps, lifetimes.id),
    interactions: { policy: loginPolicy(input.mod, project), url: loginPageUrl(input.deps, project) },
    features: {
      devInteractions: { enabled: false },
      // A client may revoke only its own tokens; others' are ignored, as RFC 7009 §2.2 allows.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      userinfo: { enabled: true },
      introspection: { enabled: false },
      registration: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: true, logoutSource: logoutPage, postLogoutSuccessSource: postLogoutPage },
    },
    pkce: { required: (_ctx, client) => client.clientAuthMethod === 'none' },
    responseTypes: ['code'],
    subjectTypes: ['public'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    allowOmittingSingleRegisteredRedirectUri: false,
    enabledJWA: { idTokenSigningAlgValues: ['RS256'], userinfoSigningAlgValues: ['RS256'], authorizationSigningAlgValues: ['RS256'] },
    extraClientMetadata: { properties: [ENVIRONMENT_METADATA] },
    rotateRefreshToken: true,
    ttl: {
      AccessToken: lifetimes.accessTokenTtlSeconds,
      IdToken: lifetimes.accessTokenTtlSeconds,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: lifetimes.refreshTokenTtlSeconds,
      Grant: lifetimes.refreshTokenTtlSeconds,
      // The interaction waits at the login page exactly as long as its request token.
      Interaction: OIDC_REQUEST_TOKEN_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
    },
    routes: OIDC_ROUTES,
    clientBasedCORS: allowRedirectOrigins,
    renderError: (ctx, out) => {
      ctx.type = 'json';
      ctx.body = { error: out.error, error_description: out.error_description ?? out.error };
    },
  };
}

/** Browser apps (public clients) may call token, userinfo and revocation from their own origins. */
function allowRedirectOrigins(_ctx: KoaContextWithOIDC, origin: string, client: { redirectUris?: readonly string[] }): boolean {
  return (client.redirectUris ?? []).some((uri) => new URL(uri).origin === origin);
}
