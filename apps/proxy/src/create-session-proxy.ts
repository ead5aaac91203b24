import { Router, type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import { createProxyCore, type RouteMatch } from './core/proxy-core';
import type { SessionProxyOptions } from './core/options';
import { ExpressProxyRequest, stripSvcHeaders, writeAnswer } from './express-request';
import { proxySvcClient } from './svc-client';

/**
 * The session proxy as an Express router: it holds the API key, forwards to the API and keeps
 * tokens in HttpOnly cookies. Mount it at the root, before or after `express.json()`; it answers
 * only under `routeBasePath`:
 *
 * ```ts
 * app.use(createSessionProxy({ apiKey: process.env.SVC_API_KEY! }));
 * ```
 *
 * Under the base path: GET session; POST login, signup, totp, logout, refresh, oauth/{provider},
 * oauth/exchange, oidc/grant, passkey/login/options, passkey/login/verify (plus the account/*
 * enrolment routes, see docs/decisions.md). Every other path or method there is 404. POSTs must
 * be JSON (415) from the proxy's own origin (403 origin_not_allowed). The rules live in
 * `core/`, shared with the web-standard handler; this file only adapts Express to them.
 */
export function createSessionProxy(options: SessionProxyOptions): Router {
  const core = createProxyCore(options, proxySvcClient);
  const run = (req: Request, res: Response, next: NextFunction, match: RouteMatch | null) => {
    stripSvcHeaders(req);
    core.answer(new ExpressProxyRequest(req), match).then((answer) => writeAnswer(res, answer), next);
  };
  // Express routes, so the host app's tools see each one (and Express matches them, with the
  // core's own rules: case-sensitive, one trailing slash tolerated).
  const routes = Router({ caseSensitive: true, strict: false });
  for (const route of core.routes) {
    const handler = (req: Request, res: Response, next: NextFunction) => run(req, res, next, { route, params: req.params as Record<string, string> });
    if (route.method === 'GET') routes.get(route.path, handler);
    else routes.post(route.path, handler);
  }
  routes.use((req: Request, res: Response, next: NextFunction) => run(req, res, next, null));
  // A parameter that does not percent-decode fails in Express's router: no such route, as on the web.
  const undecodable: ErrorRequestHandler = (error, req, res, next) => (error instanceof URIError ? run(req, res, next, null) : next(error));
  routes.use(undecodable);
  return Router({ caseSensitive: true }).use(core.options.routeBasePath, routes);
}
