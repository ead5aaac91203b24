import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { presentUserMe } from '../presenters';
import { keyed } from './guards';

/** Contract endpoint 5: GET /api/auth/me with X-API-Key and a bearer access token -> { user: UserMe }. */
export function meRoutes(deps: AppDeps): Router {
  return Router().get('/api/auth/me', ...keyed(deps), async (req, res) => {
    const user = await deps.auth.getMe(apiKeyOf(res), bearerToken(req));
    res.json({ data: { user: presentUserMe(user) } });
  });
}
