import express, { Router } from 'express';
import { BrandingCache } from './branding-cache';
import { SessionCookies } from './cookies';
import { proxyErrorHandler, sendError } from './errors';
import { resolveProxyOptions, type SessionProxyOptions } from './options';
import type { ProxyContext } from './proxy-context';
import { RefreshFlights } from './refresh-flights';
import { proxySvcClient } from './svc-client';
import { requireJsonPosts, sameOriginPosts, stripSvcHeadersMiddleware } from './request-guards';
import { accountRoutes } from './routes/account-routes';
import { federationRoutes } from './routes/federation-routes';
import { sessionRoutes } from './routes/session-routes';
import { signInRoutes } from './routes/sign-in-routes';

/** Bodies above this are refused with 413, as by the API (DESIGN §5). */
const BODY_LIMIT = '64kb';

/**
 * The session proxy (contract "Session proxy", DESIGN §10): an Express router that holds the API
 * key, forwards to the API and keeps tokens in HttpOnly cookies. Mount it at the root; it
 * answers only under `routeBasePath`:
 *
 * ```ts
 * app.use(createSessionProxy({ apiKey: process.env.SVC_API_KEY! }));
 * ```
 *
 * Under the base path: GET session; POST login, signup, totp, logout, refresh, oauth/{provider},
 * oauth/exchange, oidc/grant, passkey/login/options, passkey/login/verify (plus the account/*
 * enrolment routes, see docs/decisions.md). Every other path or method there is 404. POSTs must
 * be JSON (415) from the proxy's own origin (403 origin_not_allowed).
 */
export function createSessionProxy(options: SessionProxyOptions): Router {
  const resolved = resolveProxyOptions(options);
  const svc = options.svc ?? proxySvcClient(resolved.apiKey, resolved.baseUrl);
  const ctx: ProxyContext = {
    svc,
    options: resolved,
    cookies: new SessionCookies(resolved),
    flights: new RefreshFlights(),
    branding: new BrandingCache(svc, resolved),
  };
  const routes = Router()
    .use(stripSvcHeadersMiddleware, sameOriginPosts(resolved.publicOrigin), requireJsonPosts)
    .use(express.json({ limit: BODY_LIMIT, strict: true, type: 'application/json' }))
    .use(sessionRoutes(ctx), signInRoutes(ctx), federationRoutes(ctx), accountRoutes(ctx))
    .use((_req, res) => sendError(res, 404, 'not_found', 'No such session route.'))
    .use(proxyErrorHandler(resolved.onError));
  return Router().use(resolved.routeBasePath, routes);
}
