import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AuthError } from '@svc/core';
import { AfterAnswer } from './after-answer';
import type { AppDeps } from './app-deps';
import { hotPathFailures, installHotPaths } from './hot-path';
import { errorBody, fromAuthError, fromTransportError, UNAVAILABLE_RETRY_AFTER_SECONDS } from './http-errors';
import { countRequests, createMetrics } from './metrics';
import { corsPreflight } from './middleware/cors';
import { jsonBody } from './middleware/json-guard';
import { requestId } from './middleware/request-id';
import { requestLog } from './middleware/request-log';
import { requestContext } from './request-context';
import { requireJson } from './middleware/require-json';
import { securityHeaders } from './middleware/security-headers';
import { adminRoutes } from './routes/admin';
import { consoleRoutes } from './routes/console';
import { ConsoleSessions } from './console-session';
import { loginRoutes } from './routes/auth-login';
import { logoutRoutes } from './routes/auth-logout';
import { meHotPath, meRoutes } from './routes/auth-me';
import { refreshHotPath, refreshRoutes } from './routes/auth-refresh';
import { signupRoutes } from './routes/auth-signup';
import { healthRoutes } from './routes/health';
import { jwksRoutes } from './routes/jwks';
import { metricsRoutes } from './routes/metrics';
import { brandingRoutes } from './routes/sdk-branding';
import { oauthRoutes } from './routes/auth-oauth';
import { passkeyRoutes } from './routes/passkeys';
import { twoFactorRoutes } from './routes/two-factor';
import { magicLinkRequest, magicLinkRoutes } from './routes/auth-magic-link';
import { mailRequestHotPath } from './routes/mail-request';
import { magicLinkVerifyRoutes } from './routes/auth-magic-link-verify';
import { passwordResetRequest, passwordRoutes } from './routes/auth-password';
import { oidcGrantRoutes } from './routes/auth-oidc-grant';
import { oidcProviderRoutes } from './routes/oidc-provider';
import { homeRoutes } from './routes/home';
import { openApiRoutes } from './routes/openapi';
import { sessionRoutes } from './routes/auth-sessions';
import { accountRoutes } from './routes/auth-account';
import { emailVerifyRoutes } from './routes/auth-email-verify';

/** Request bodies above this are refused with 413 (the OpenAPI document). */
export const BODY_LIMIT = '64kb';

/** Builds the Express app. Nothing listens and nothing runs at import, so tests build it over fakes. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.set('trust proxy', deps.config.trustProxy);
  app.set('etag', false);
  app.disable('x-powered-by');
  const metrics = deps.metrics ?? createMetrics();
  app.use(requestId(), requestLog(deps.logger), countRequests(metrics), securityHeaders(), hotPathFailures());
  // The OIDC issuers parse their own (form) bodies and answer their own CORS: mounted first.
  app.use(oidcProviderRoutes(deps));
  // Preflights carry no key and no body: answered before anything else looks at them (cors.ts).
  app.use(corsPreflight());
  app.use(requireJson(), ...jsonBody(), requestContext());
  // Token responses must not be stored by any cache (RFC 6749 §5.1).
  app.use('/api/auth', noStore);
  // The busiest routes first: Express tries every router mounted before the one that matches.
  app.use(refreshRoutes(deps), meRoutes(deps), loginRoutes(deps), signupRoutes(deps), logoutRoutes(deps));
  app.use(healthRoutes(deps), jwksRoutes(deps), metricsRoutes(deps, metrics), magicLinkVerifyRoutes(deps));
  // The API's own description (apps/api/openapi/openapi.yaml) and its reference page; no key.
  app.use(openApiRoutes(), homeRoutes());
  app.use(brandingRoutes(deps));
  app.use(twoFactorRoutes(deps), passkeyRoutes(deps), sessionRoutes(deps), accountRoutes(deps));
  const mailDeps = { ...deps, metrics, afterAnswer: deps.afterAnswer ?? new AfterAnswer({ logger: deps.logger, metrics }) };
  // Described once: Express's routes and the hot path below answer the same requests.
  const magicLink = magicLinkRequest(mailDeps);
  const passwordReset = passwordResetRequest(mailDeps);
  app.use(magicLinkRoutes(mailDeps, magicLink), passwordRoutes(mailDeps, passwordReset), emailVerifyRoutes(mailDeps));
  app.use(oauthRoutes(deps));
  app.use(oidcGrantRoutes(deps));
  const consoleSessions = new ConsoleSessions(deps.config.adminToken, deps.consoleSignOuts);
  app.use('/admin', adminRoutes(mailDeps, consoleSessions));
  app.use(consoleRoutes(deps, consoleSessions));
  // Unknown paths, and known paths with another method (405 is answered as 404, as the OpenAPI document says).
  app.use((_req, _res, next) => next(new AuthError('not_found', 'No such endpoint.')));
  app.use(errorHandler(deps.logger));
  // The busiest server-to-server requests, answered without Express (hot-path.ts).
  installHotPaths(app, [refreshHotPath({ ...deps, metrics }, app), meHotPath({ auth: deps.auth, metrics, logger: deps.logger }), mailRequestHotPath(mailDeps, app, [magicLink, passwordReset])]);
  return app;
}

const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};

/**
 * Every failure leaves as `{ error, message }`. AuthErrors and body-parser errors map through
 * http-errors.ts; anything else is a 500 with a generic message, its cause logged with the
 * request id, never sent.
 */
function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const known = error instanceof AuthError ? fromAuthError(error) : fromTransportError(error);
    if (known && known.status < 500) return void res.status(known.status).json(known.body);
    if (known?.body.error === 'service_unavailable') {
      // A dependency's outage, not a bug: one warning per request, and a hint when to come back.
      logger.warn({ err: error, requestId: res.locals.requestId }, 'dependency unavailable');
      return void res.status(known.status).set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS)).json(known.body);
    }
    logger.error({ err: error, requestId: res.locals.requestId }, 'unhandled error');
    res.status(500).json(errorBody('internal_error'));
  };
}
