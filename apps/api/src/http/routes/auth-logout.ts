import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { RefreshLogoutDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { keyed } from './guards';

/** POST /api/auth/logout -> { success: true }, known token or not (idempotent). */
export function logoutRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/logout', ...keyed(deps), validateBody(RefreshLogoutDto), async (_req, res) => {
    await deps.auth.logOut(apiKeyOf(res), bodyOf(res, RefreshLogoutDto).refreshToken);
    res.json({ data: { success: true } });
  });
}
