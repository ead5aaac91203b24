import type { Express, Request, Response } from 'express';
import { Router } from 'express';
import type { TokenBundle } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { RefreshLogoutDto } from '../dto/auth-dtos';
import { hotPathRouteFailure, keyedJsonHotPath, writeDataAnswer, type HotPath, type KeyedJsonRoute } from '../hot-path';
import type { Metrics } from '../metrics';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentTokens } from '../presenters';
import { countLimits } from '../middleware/rate-limit';
import { keyed, limitOptions } from './guards';

const REFRESH_PATH = '/api/auth/refresh';

/** POST /api/auth/refresh -> new tokens; the presented one is used up. */
export function refreshRoutes(deps: AppDeps): Router {
  const { Dto, answer } = refreshRoute(deps);
  return Router().post(REFRESH_PATH, hotPathRouteFailure(), ...keyed(deps), validateBody(Dto), answer);
}

/** What the route and its hot path run once the key is known: the body's DTO, then the refresh. */
function refreshRoute(deps: AppDeps): KeyedJsonRoute {
  return {
    Dto: RefreshLogoutDto,
    answer: async (req, res) => writeDataAnswer(res, presentTokens(await refresh(deps, req, res))),
  };
}

/**
 * The refresh of a request whose key and body were checked (the route's and the hot path's). The
 * `refresh` limit is counted as for every route, but beside the token's read rather than before it
 * (the limiter's round trip to Redis overlaps the database's): the refresh waits for its decision
 * before it decides or changes anything, so a refused request is refused exactly as before.
 */
function refresh(deps: AppDeps, req: Request, res: Response): Promise<TokenBundle> {
  const admitted = countLimits(['refresh'], limitOptions(deps), req, res);
  // Handled here too: should anything throw before the refresh awaits it, a refusal is no unhandled rejection.
  admitted.catch(() => undefined);
  return deps.auth.refresh(apiKeyOf(res), bodyOf(res, RefreshLogoutDto).refreshToken, { admitted });
}

/**
 * POST /api/auth/refresh from a server (the SDK, the session proxy) without Express
 * (hot-path.ts, `keyedJsonHotPath`). A refresh changes state (rotation; a replay revokes sessions
 * and is recorded), so it runs once: what the hot path cannot carry to the end is Express's, and
 * any failure on the way is handed to Express's error handler.
 */
export function refreshHotPath(deps: AppDeps & { metrics: Metrics }, app: Express): HotPath {
  return keyedJsonHotPath(deps, app, { [REFRESH_PATH]: refreshRoute(deps) });
}
