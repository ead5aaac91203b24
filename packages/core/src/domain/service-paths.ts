/**
 * Paths of the service that other parties hold as URLs: the OAuth callback registered at identity
 * providers, and the issuer of each project's hosted OIDC provider. Core builds the URLs from the
 * configured base URL (never the request's Host); the HTTP edge mounts its routes at these
 * patterns (`:name` is a path parameter).
 */
export const OAUTH_CALLBACK_ROUTE = '/api/auth/oauth/:provider/callback';
export const OIDC_ISSUER_ROUTE = '/api/oidc/:projectId';

/** `route` under `baseUrl` (trailing slashes dropped) with each `:name` set from `params`. */
function serviceUrl(baseUrl: string, route: string, params: Record<string, string>): string {
  const path = route.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name]));
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

/** The service's own OAuth callback for `provider` (`GET /api/auth/oauth/{provider}/callback`). */
export function oauthCallbackUrl(baseUrl: string, provider: string): string {
  return serviceUrl(baseUrl, OAUTH_CALLBACK_ROUTE, { provider });
}

/** The issuer of a project's hosted OIDC provider: `{baseUrl}/api/oidc/{projectId}`. */
export function oidcIssuerUrl(baseUrl: string, projectId: string): string {
  return serviceUrl(baseUrl, OIDC_ISSUER_ROUTE, { projectId });
}
