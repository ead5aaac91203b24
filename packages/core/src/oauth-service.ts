import type { SignInOptions } from './use-cases/complete-first-factor';
import type { Environment } from './domain/environment';
import type { AuthServiceDeps, OAuthDeps } from './use-cases/deps';
import { configureOAuthProvider, listOAuthProviders, removeOAuthProvider, type OAuthProviderInput } from './use-cases/oauth/configure-provider';
import { exchangeOAuthCode } from './use-cases/oauth/exchange-oauth-code';
import { finishOAuthCallback, type OAuthCallbackQuery } from './use-cases/oauth/finish-oauth';
import { startOAuth, type StartOAuthInput } from './use-cases/oauth/start-oauth';
import type { ResolvedApiKey } from './use-cases/resolve-api-key';

/**
 * Social sign-in (docs/decisions.md#social-sign-in), bound to `deps`; part of createAuthService
 * with the OAuth capability.
 * The flow: `start` (API key) -> the browser visits the provider -> `callback` (no key; the
 * state names the tenant) -> the browser reaches the caller's URL -> `exchange` (API key).
 */
export function oauthService(deps: AuthServiceDeps & OAuthDeps) {
  return {
    oauth: {
      start: (key: ResolvedApiKey, provider: string, input: StartOAuthInput) => startOAuth(deps, key.scope, key.project, provider, input),
      callback: (provider: string, query: OAuthCallbackQuery) => finishOAuthCallback(deps, provider, query),
      exchange: (key: ResolvedApiKey, code: string, options?: SignInOptions) => exchangeOAuthCode(deps, key.scope, key.project, code, options),
    },
  };
}

/** The admin side: provider settings per project and environment (the OpenAPI document). */
export function oauthAdminService(deps: AuthServiceDeps & OAuthDeps) {
  return {
    configureOAuthProvider: (projectId: string, provider: string, input: OAuthProviderInput) => configureOAuthProvider(deps, projectId, provider, input),
    listOAuthProviders: (projectId: string, environment: Environment) => listOAuthProviders(deps, projectId, environment),
    removeOAuthProvider: (projectId: string, provider: string, environment: Environment) => removeOAuthProvider(deps, projectId, provider, environment),
  };
}
