import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import type { User } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { presentUserMe } from '../presenters';
import { keyed } from './guards';

export const ME_PATH = '/api/auth/me';

/** GET /api/auth/me with X-API-Key and a bearer access token -> { user: UserMe }. */
export function meRoutes(deps: AppDeps): Router {
  return Router().get(ME_PATH, ...keyed(deps), async (req, res) => {
    writeMeAnswer(res, await deps.auth.getMe(apiKeyOf(res), bearerToken(req)));
  });
}

/**
 * The success answer of GET /api/auth/me: the presenter, the body and its headers, as `res.json`
 * would write them. This route and the hot path (hot-path.ts), which answers servers without
 * Express, both write it here; the headers the middleware sets before a route runs, the hot path
 * sets itself.
 */
export function writeMeAnswer(res: ServerResponse, user: User): void {
  const body = JSON.stringify({ data: { user: presentUserMe(user) } });
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.statusCode = 200;
  res.end(body);
}
