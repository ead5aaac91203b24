import { Router, type ErrorRequestHandler, type NextFunction, type Request, type Response } from 'express';
import { createProxyCore, type RouteMatch } from './core/proxy-core';
import type { SessionProxyOptions } from './core/options';
import { ExpressProxyRequest } from './express-request';
import { pathOf, stripSvcHeaders, writeAnswer } from './node-request';
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
  // core's own rules: case-sensitive, one trailing slash tolerated). One router, full paths.
  const base = core.options.routeBasePath === '/' ? '' : core.options.routeBasePath;
  const router = Router({ caseSensitive: true, strict: false });
  for (const route of core.routes) {
    const handler = (req: Request, res: Response, next: NextFunction) => run(req, res, next, { route, params: req.params as Record<string, string> });
    if (route.method === 'GET') router.get(`${base}${route.path}`, handler);
    else router.post(`${base}${route.path}`, handler);
  }
  // Every other path or method under the base path: the core's checks, then 404.
  const ours = (req: Request) => core.subPath(pathOf(req.url)) !== null;
  router.use((req: Request, res: Response, next: NextFunction) => (ours(req) ? run(req, res, next, null) : next()));
  // A parameter that does not percent-decode fails in Express's router: no such route, as on the web.
  const undecodable: ErrorRequestHandler = (error, req, res, next) => (error instanceof URIError && ours(req) ? run(req, res, next, null) : next(error));
  router.use(undecodable);
  return router;
}
