import { Router, type RequestHandler } from 'express';
import { AuthError, OAUTH_CALLBACK_ROUTE } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { OAuthCallbackQuery, OAuthInitiateDto, OAuthTokenDto } from '../dto/oauth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { signInClient } from '../middleware/client-address';
import { bodyOf, queryOf, validateBody, validateInput, validateQuery } from '../middleware/validate';
import { presentOAuthExchange } from '../oauth-presenters';
import { keyed } from './guards';

/**
 * Social sign-in: initiate, callback, exchange (docs/decisions.md#social-sign-in). The exchange route is registered before
 * `/:provider`, which would otherwise take `token` for a provider slug.
 */
export function oauthRoutes(deps: AppDeps): Router {
  const { oauth } = deps.auth;
  return (
    Router()
      .post('/api/auth/oauth/token', ...keyed(deps), validateBody(OAuthTokenDto), async (req, res) => {
        const { provider, result } = await oauth.exchange(apiKeyOf(res), bodyOf(res, OAuthTokenDto).code, { client: signInClient(req, res) });
        res.json({ data: presentOAuthExchange(provider, result) });
      })
      .post('/api/auth/oauth/:provider', ...keyed(deps), optionalBody(OAuthInitiateDto), async (req, res) => {
        const started = await oauth.start(apiKeyOf(res), String(req.params.provider), bodyOf(res, OAuthInitiateDto));
        res.json({ data: { provider: started.provider, authorizationUrl: started.authorizationUrl } });
      })
      // A link checker's HEAD must not burn the single-use state (Express answers HEAD with GET routes).
      // `GET /api/auth/oauth/{provider}/callback`, reached by the browser from the identity provider (no API key).
      .head(OAUTH_CALLBACK_ROUTE, () => {
        throw new AuthError('not_found', 'No such endpoint.');
      })
      .get(OAUTH_CALLBACK_ROUTE, validateQuery(OAuthCallbackQuery), async (req, res) => {
        const provider = String(req.params.provider);
        const result = await oauth.callback(provider, queryOf(res, OAuthCallbackQuery));
        if (result.error) logRefusal(deps, res.locals.requestId, provider, result.error, result.cause);
        // A bare 302: no body, so nothing of the URL is ever rendered as markup.
        res.status(302).location(result.redirectUrl).end();
      })
  );
}

/** The contract's initiate body is optional: no body at all reads as `{}`. */
function optionalBody<T extends object>(Dto: new () => T): RequestHandler {
  return async (req, res, next) => {
    res.locals.body = await validateInput(Dto, req.body ?? {});
    next();
  };
}

/** Operators need the provider's reason (a wrong secret, a bad ID token); the browser gets a fixed word. */
function logRefusal(deps: AppDeps, requestId: unknown, provider: string, reason: string, cause: unknown): void {
  const detail = cause instanceof Error ? [cause.message, (cause.cause as Error | undefined)?.message].filter(Boolean).join(': ') : undefined;
  deps.logger.info({ requestId, provider, reason, detail }, 'oauth sign-in refused');
}
