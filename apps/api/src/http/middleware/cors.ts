import type { Request, RequestHandler, Response } from 'express';
import { AuthError } from '@svc/core';

/** Request headers a browser may send to the API (preflight answer). */
const CORS_ALLOWED_HEADERS = ['X-API-Key', 'Content-Type', 'Authorization', 'X-Request-Id'] as const;
/** Methods of the API's routes under /api (DELETE: passkeys). */
const CORS_ALLOWED_METHODS = ['GET', 'POST', 'DELETE'] as const;
/** Response headers browser code may read: correlation and back-off hints. */
const EXPOSED_HEADERS = 'X-Request-Id, RateLimit, RateLimit-Policy, Retry-After';
/** How long a browser may reuse a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Answers CORS preflights (OPTIONS with Origin and Access-Control-Request-Method) under /api/ with
 * 204 for any origin. Browsers send no X-API-Key on a preflight, so the project and its
 * allowedOrigins are not known yet; the actual request, which carries the key, is checked by
 * {@link originGuard} before any handler runs, and a refused origin gets 403 without
 * `Access-Control-Allow-Origin`. So a generous preflight lets no foreign origin cause an effect or
 * read an answer. Every other OPTIONS is 404 not_found (as for any method a path does not have,
 * see app.ts): no route ever sees an OPTIONS, so none can consume a magic link on one.
 */
export function corsPreflight(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'OPTIONS') return next();
    const origin = req.get('origin');
    if (!req.path.startsWith('/api/') || origin === undefined || req.get('access-control-request-method') === undefined) {
      throw new AuthError('not_found', 'No such endpoint.');
    }
    res.vary('Origin');
    res.set({
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': CORS_ALLOWED_METHODS.join(', '),
      'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
      'Access-Control-Max-Age': String(PREFLIGHT_MAX_AGE),
    });
    res.status(204).end();
  };
}

/** The allowed origins of the request's project, or null when the project is not known. */
export type AllowedOriginsOf = (req: Request, res: Response) => readonly string[] | null | Promise<readonly string[] | null>;

/**
 * The project's allowedOrigins, on the actual request (docs/decisions.md#contract-clarifications). No Origin (server-to-server): nothing to
 * check. An Origin not in a non-empty allowedOrigins: 403 origin_not_allowed. Otherwise the exact
 * origin is echoed (never `*`), with `Vary: Origin` so caches keep answers per origin. An empty
 * list allows any origin. `Access-Control-Allow-Credentials` is never sent: the API reads no
 * cookies, its credentials are headers the caller sets on purpose.
 */
export function originGuard(allowedOriginsOf: AllowedOriginsOf): RequestHandler {
  return async (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('origin');
    if (origin === undefined) return next();
    const allowed = await allowedOriginsOf(req, res);
    // Unknown project (e.g. a bad `project` query): grant nothing; the route gives its own error.
    if (allowed === null) return next();
    if (allowed.length > 0 && !allowed.includes(origin)) throw new AuthError('origin_not_allowed');
    res.set('Access-Control-Allow-Origin', origin);
    res.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}

/**
 * CORS for the key-less GET /api/auth/magic-link/verify: the project comes from its `project`
 * query (`GET /api/auth/magic-link/verify`); `allowedOrigins` is the service's cached lookup of it (null for
 * an id that names no project).
 */
export function projectQueryCors(allowedOrigins: (projectId: string) => Promise<readonly string[] | null>): RequestHandler {
  return originGuard(async (req) => {
    const id = req.query.project;
    return typeof id === 'string' ? allowedOrigins(id) : null;
  });
}
