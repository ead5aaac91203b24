import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { RefreshLogoutDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentTokens } from '../presenters';
import { keyed, limited } from './guards';

/** POST /api/auth/refresh -> new tokens; the presented one is used up. */
export function refreshRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/refresh', ...keyed(deps), validateBody(RefreshLogoutDto), limited(deps, 'refresh'), async (_req, res) => {
    const tokens = await deps.auth.refresh(apiKeyOf(res), bodyOf(res, RefreshLogoutDto).refreshToken);
    res.json({ data: presentTokens(tokens) });
  });
}
