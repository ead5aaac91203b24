import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { isAuthError, type AuthService } from '@svc/core';
import { countAnswer, type Metrics } from './metrics';
import { BEARER } from './middleware/bearer';
import { chooseRequestId } from './middleware/request-id';
import { elapsedMs, requestLineWriter } from './middleware/request-log';
import { setSecurityHeaders } from './middleware/security-headers';
import { ME_PATH, writeMeAnswer } from './routes/auth-me';

export interface HotPathDeps {
  auth: Pick<AuthService, 'resolveApiKey' | 'getMe'>;
  metrics: Metrics;
  logger: Logger;
}

/**
 * The one request every page view of a customer's app makes, `GET /api/auth/me` from a server
 * (the SDK, the session proxy), answered without Express: routing, the middleware chain and
 * Express's response helpers cost more than the token check and the query together (bench/README.md).
 *
 * Only the success answer is written here, by the route's own writer (routes/auth-me.ts), with
 * the same headers, log line and metrics as the route. Anything else is handed to Express
 * untouched and answered there, errors included, so there is one place that decides every
 * failure: a request whose key, token, user or session does not check out is simply run again
 * through the app (getMe only reads). Requests with an Origin (browsers: CORS), a body, a query
 * string or another method always go to Express.
 */
export function installHotPaths(app: Express, deps: HotPathDeps): void {
  const me = meHotPath(deps);
  const expressApp = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, done?: unknown): void };
  const viaExpress = expressApp.handle.bind(app);
  // `app` (the function listen() and supertest call) delegates to app.handle: wrapping it puts the
  // hot path in front of every way the app is served, mounted apps included.
  expressApp.handle = (req, res, done) => {
    const fallback = (error: unknown) => {
      // A database that did not answer in time would not answer a second time either: Express
      // is handed the failure to answer (503) rather than the request to run again.
      if (isAuthError(error, 'service_unavailable')) failures.set(req, error);
      viaExpress(req, res, done);
    };
    if (!me(req, res, fallback)) viaExpress(req, res, done);
  };
}

/** Failures of the hot path that Express is to answer as they are (see `hotPathFailures`). */
const failures = new WeakMap<IncomingMessage, unknown>();

/**
 * Mounted in the app after the request id and the log, before any route: a request the hot path
 * already failed with `service_unavailable` goes straight to the error handler.
 */
export function hotPathFailures(): RequestHandler {
  return (req, _res, next) => {
    const failure = failures.get(req);
    if (failure === undefined) return next();
    failures.delete(req);
    next(failure);
  };
}

/** True when it took the request; `fallback` hands it to Express when it cannot answer 200. */
type HotPath = (req: IncomingMessage, res: ServerResponse, fallback: (error: unknown) => void) => boolean;

function meHotPath(deps: HotPathDeps): HotPath {
  const writeLine = requestLineWriter(deps.logger);
  return (req, res, fallback) => {
    const headers = req.headers;
    if (req.method !== 'GET' || req.url !== ME_PATH || headers.origin !== undefined) return false;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const apiKey = headers['x-api-key'];
    const token = BEARER.exec(headers.authorization ?? '')?.[1];
    if (typeof apiKey !== 'string' || token === undefined) return false;
    const started = process.hrtime.bigint();
    deps.auth
      .resolveApiKey(apiKey)
      .then((key) => deps.auth.getMe(key, token))
      .then((user) => {
        const requestId = chooseRequestId(headers['x-request-id']);
        // What the middleware in front of routes/auth-me.ts sets, in its order (request id,
        // helmet, no-store, CORS vary); then the route's own answer.
        res.setHeader('X-Request-Id', requestId);
        setSecurityHeaders(res);
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('Vary', 'Origin');
        writeMeAnswer(res, user);
        const route = `${(req as { baseUrl?: string }).baseUrl ?? ''}${ME_PATH}`;
        writeLine({ requestId, method: 'GET', route, status: 200, ms: elapsedMs(started) });
        countAnswer(deps.metrics, { method: 'GET', route, status: 200, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
      })
      .catch(fallback);
    return true;
  };
}
