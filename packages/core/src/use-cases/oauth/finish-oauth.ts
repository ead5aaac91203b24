import { AuthError } from '../../errors';
import { isOAuthProvider, OAuthCallbackFailure, type OAuthCallbackError } from '../../domain/oauth';
import { withQuery } from '../../domain/redirect-url';
import { OAuthProviderError, type OAuthProfile } from '../../ports/oauth-provider-client';
import type { AuthDeps } from '../deps';
import { issueExchangeCode } from './exchange-oauth-code';
import { codeVerifierContext, consumeOAuthState, type OpenedOAuthState } from './oauth-state';
import { callbackUrlOf, clientConfigOf, providerSettings } from './provider-settings';
import { resolveOAuthUser, type ResolveDeps } from './resolve-oauth-user';
import { sha256Hex } from '../../domain/secrets';

/** The query of the provider's redirect to the callback, already checked to be plain strings. */
export interface OAuthCallbackQuery {
  code?: string;
  state?: string;
  /** Set by the provider instead of `code` when the user declined or the request failed. */
  error?: string;
  /** RFC 9207 issuer identification, when the provider sends it. */
  iss?: string;
}

/** Where the browser goes next; `error` (and its `cause`, for the log only) when the sign-in was refused. */
export interface OAuthCallbackResult {
  redirectUrl: string;
  error?: OAuthCallbackError;
  cause?: unknown;
}

type CallbackDeps = ResolveDeps & Pick<AuthDeps, 'projects' | 'secretBox' | 'oneTimeTokens' | 'oauthProviders' | 'oauthClient'>;

/**
 * `GET /api/auth/oauth/{provider}/callback`. The state is checked first: without a valid one nothing is trusted and
 * the answer is `400 validation_error`. With one, the browser always goes back to the caller's
 * URL: with `code` (single use, 60 s), `provider` and the caller's `state`, or with `error`.
 */
export async function finishOAuthCallback(deps: CallbackDeps, provider: string, query: OAuthCallbackQuery): Promise<OAuthCallbackResult> {
  if (!isOAuthProvider(provider)) throw new AuthError('validation_error', 'Unknown sign-in provider.');
  const state = await consumeOAuthState(deps, provider, query.state);
  const echo = { provider, state: state.callerState };
  try {
    const profile = await profileFromProvider(deps, state, query);
    const user = await resolveOAuthUser(deps, state.scope, state.project, provider, profile);
    const code = await issueExchangeCode(deps, state.scope, user.id, provider);
    return { redirectUrl: withQuery(state.redirectUrl, { code, ...echo }) };
  } catch (error) {
    if (!(error instanceof OAuthCallbackFailure)) throw error;
    return { redirectUrl: withQuery(state.redirectUrl, { error: error.reason, ...echo }), error: error.reason, cause: error.cause };
  }
}

async function profileFromProvider(deps: CallbackDeps, state: OpenedOAuthState, query: OAuthCallbackQuery): Promise<OAuthProfile> {
  // The provider's own error text is never passed on: only our fixed words leave (no reflection).
  if (query.error !== undefined) throw new OAuthCallbackFailure(query.error === 'access_denied' ? 'access_denied' : 'provider_error');
  const settings = await providerSettings(deps, state.scope, state.provider);
  // Disabled between initiate and callback: the operator's latest word wins.
  if (!query.code || !settings?.config.enabled) throw new OAuthCallbackFailure('provider_error');
  try {
    return await deps.oauthClient.exchange({
      config: clientConfigOf(deps, settings),
      redirectUri: callbackUrlOf(deps, state.provider),
      code: query.code,
      state: state.token,
      iss: query.iss,
      codeVerifier: deps.secretBox.open(state.sealedCodeVerifier, codeVerifierContext(sha256Hex(state.token))),
      nonce: state.nonce,
    });
  } catch (error) {
    if (error instanceof OAuthProviderError) throw new OAuthCallbackFailure('provider_error', { cause: error });
    throw error;
  }
}
