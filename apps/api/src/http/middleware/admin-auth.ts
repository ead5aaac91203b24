import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AuthError } from '@svc/core';
import { consoleCookieOf, CSRF_HEADER, sameText, type ConsoleSessions } from '../console-session';

/**
 * Guards the admin API (the OpenAPI document) with `Authorization: Bearer <SVC_ADMIN_TOKEN>`. Both sides
 * are hashed before the constant-time compare, so neither the token's bytes nor its length leak
 * through timing. Missing or wrong -> 401 unauthorized. `otherTokens` are accepted too (the
 * scrape-only metrics token on /metrics).
 */
export function requireAdmin(adminToken: string, ...otherTokens: string[]): RequestHandler {
  const expected = [adminToken, ...otherTokens].map(digest);
  return (req, _res, next) => {
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented === undefined) throw new AuthError('unauthorized');
    const hash = digest(presented);
    // Every token is compared (no early exit), so timing does not tell which one nearly matched.
    const matches = expected.filter((token) => timingSafeEqual(hash, token)).length;
    if (matches === 0) throw new AuthError('unauthorized');
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * The admin API's guard: the admin token as a bearer (scripts, the CLI's peers), or a console
 * session (console-session.ts) with its CSRF token in `X-Svc-Csrf`. A bearer, when present, is
 * the only credential looked at. A cookie without the matching CSRF header is refused, so a form
 * or link of another site can never act with it, even where SameSite is not enforced.
 */
export function requireAdminOrConsole(adminToken: string, sessions: ConsoleSessions): RequestHandler {
  const bearer = requireAdmin(adminToken);
  return async (req, res, next) => {
    if (req.get('authorization') !== undefined) return bearer(req, res, next);
    const session = await sessions.read(consoleCookieOf(req), new Date());
    if (!session) throw new AuthError('unauthorized');
    const presented = req.get(CSRF_HEADER);
    if (presented === undefined || !sameText(presented, session.csrfToken)) {
      throw new AuthError('unauthorized', 'The console session needs its CSRF token (X-Svc-Csrf).');
    }
    res.locals.consoleSession = session;
    next();
  };
}
