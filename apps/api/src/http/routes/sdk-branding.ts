import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { apiKeyOf } from '../middleware/api-key';
import { keyed } from './guards';

/** GET /api/auth/sdk/branding -> { poweredByService } (true on the FREE plan). */
export function brandingRoutes(deps: AppDeps): Router {
  return Router().get('/api/auth/sdk/branding', ...keyed(deps), (_req, res) => {
    res.json({ data: deps.auth.branding(apiKeyOf(res)) });
  });
}
