import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { RefreshLogoutDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentTokens } from '../presenters';
import { countLimits } from '../middleware/rate-limit';
import { keyed, limitOptions } from './guards';

/**
 * POST /api/auth/refresh -> new tokens; the presented one is used up. The `refresh` limit is
 * counted as for every route, but beside the token's read rather than before it (the limiter's
 * round trip to Redis overlaps the database's): the refresh waits for its decision before it
 * decides or changes anything, so a refused request is refused exactly as before.
 */
export function refreshRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/refresh', ...keyed(deps), validateBody(RefreshLogoutDto), async (req, res) => {
    const admitted = countLimits(['refresh'], limitOptions(deps), req, res);
    // Handled here too: should anything throw before the refresh awaits it, a refusal is no unhandled rejection.
    admitted.catch(() => undefined);
    const tokens = await deps.auth.refresh(apiKeyOf(res), bodyOf(res, RefreshLogoutDto).refreshToken, { admitted });
    res.json({ data: presentTokens(tokens) });
  });
}
