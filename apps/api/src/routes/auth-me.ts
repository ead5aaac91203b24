import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app';
import { apiKeyOf } from '../middleware/api-key';
import { presentUserMe } from '../presenters';
import { keyed } from './guards';

/** RFC 6750 credentials: the scheme is case-insensitive; the token is one run of non-space characters. */
const BEARER = /^Bearer +(\S+) *$/i;

/** Contract endpoint 5: GET /api/auth/me with X-API-Key and a bearer access token -> { user: UserMe }. */
export function meRoutes(deps: AppDeps): Router {
  return Router().get('/api/auth/me', ...keyed(deps), async (req, res) => {
    const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
    if (token === undefined) throw new AuthError('invalid_token', 'An access token is required (Authorization: Bearer <token>).');
    const user = await deps.auth.getMe(apiKeyOf(res), token);
    res.json({ data: { user: presentUserMe(user) } });
  });
}
