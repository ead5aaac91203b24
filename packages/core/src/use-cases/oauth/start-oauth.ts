import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { callerStateProblem, type OAuthProvider, type OAuthProviderConfig } from '../../domain/oauth';
import { pkceChallenge } from '../../domain/pkce';
import type { Project } from '../../domain/project';
import { matchRedirectUrl } from '../../domain/redirect-url';
import type { AuthDeps } from '../deps';
import { newBearerSecret } from '../../domain/secrets';
import { issueOAuthState } from './oauth-state';
import { callbackUrlOf, clientConfigOf, enabledProvider } from './provider-settings';

export interface StartOAuthInput {
  /** Where the browser returns; must be in the project's redirectUrls. Default: provider's, then project's first. */
  redirectUrl?: string | null;
  /** The caller's opaque value, echoed on the final redirect. */
  state?: string;
}

/**
 * `POST /api/auth/oauth/{provider}`: checks provider and redirect URL, stores a single-use state that binds
 * this sign-in (10 minutes), and answers the provider's authorization URL with PKCE (S256) and,
 * for OpenID providers, a nonce.
 */
export async function startOAuth(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'oneTimeTokens' | 'secretBox' | 'oauthProviders' | 'oauthClient'>,
  scope: TenantScope,
  project: Project,
  provider: string,
  input: StartOAuthInput,
): Promise<{ provider: OAuthProvider; authorizationUrl: string }> {
  const settings = await enabledProvider(deps, scope, provider);
  const { config } = settings;
  const redirectUrl = allowedRedirectUrl(project, config, input.redirectUrl ?? null);
  const stateProblem = input.state === undefined ? null : callerStateProblem(input.state);
  if (stateProblem) throw new AuthError('validation_error', stateProblem);
  const codeVerifier = newBearerSecret(deps.random);
  const nonce = newBearerSecret(deps.random);
  const state = await issueOAuthState(deps, scope, { provider: config.provider, redirectUrl, callerState: input.state, nonce, codeVerifier });
  const authorizationUrl = await deps.oauthClient.authorizationUrl({
    config: clientConfigOf(deps, settings),
    redirectUri: callbackUrlOf(deps, config.provider),
    state,
    codeChallenge: pkceChallenge(codeVerifier),
    nonce,
  });
  return { provider: config.provider, authorizationUrl };
}

/** The requested (or default) URL must match an allow-list entry exactly. */
function allowedRedirectUrl(project: Project, config: OAuthProviderConfig, requested: string | null): string {
  const candidate = requested ?? config.redirectUrl ?? project.redirectUrls[0];
  if (candidate === undefined) {
    throw new AuthError('validation_error', "No redirect URL: pass redirectUrl or list one in the project's redirectUrls.");
  }
  const allowed = matchRedirectUrl(project.redirectUrls, candidate);
  if (!allowed) throw new AuthError('validation_error', "redirectUrl must exactly match one of the project's redirectUrls.");
  return allowed;
}
