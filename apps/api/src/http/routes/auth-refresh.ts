import type { Express, Request, Response } from 'express';
import { Router } from 'express';
import type { TokenBundle } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { RefreshLogoutDto } from '../dto/auth-dtos';
import { answerRecorder, asExpress, frontHeaders, hotPathRouteFailure, readBody, unreadJsonBody, writeDataAnswer, type HotPath } from '../hot-path';
import type { Metrics } from '../metrics';
import { apiKeyOf } from '../middleware/api-key';
import { parseJsonText } from '../middleware/json-guard';
import { bodyOf, validateBody, validateInput } from '../middleware/validate';
import { presentTokens } from '../presenters';
import { countLimits } from '../middleware/rate-limit';
import { runInRequestContext } from '../request-context';
import { keyed, limitOptions } from './guards';

const REFRESH_PATH = '/api/auth/refresh';

/** POST /api/auth/refresh -> new tokens; the presented one is used up. */
export function refreshRoutes(deps: AppDeps): Router {
  return Router().post(REFRESH_PATH, hotPathRouteFailure(), ...keyed(deps), validateBody(RefreshLogoutDto), async (req, res) => {
    writeDataAnswer(res, presentTokens(await refresh(deps, req, res)));
  });
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
 * POST /api/auth/refresh from a server (the SDK, the session proxy) without Express (hot-path.ts).
 * A refresh changes state (rotation; a replay revokes sessions and is recorded), so it runs once:
 * the hot path takes only requests it can carry to the end, runs the steps the app and the route
 * run, in their order and with their functions (request id, helmet, the body's checks, the
 * request's context for events, no-store, the API key, Vary, RefreshLogoutDto, the limit, the
 * refresh), and hands any failure to Express's error handler, which answers it behind the same
 * headers. Not taken (Express answers as it always does): an Origin (CORS), a query string, a
 * missing key, a body that is not plain JSON within the limit or was read already.
 */
export function refreshHotPath(deps: AppDeps & { metrics: Metrics }, app: Express): HotPath {
  const recordAnswer = answerRecorder(deps.logger, deps.metrics);
  return (incoming, response, handOver) => {
    const headers = incoming.headers;
    if (incoming.method !== 'POST' || incoming.url !== REFRESH_PATH || headers.origin !== undefined) return false;
    if (typeof headers['x-api-key'] !== 'string' || !unreadJsonBody(incoming)) return false;
    const started = process.hrtime.bigint();
    const { req, res } = asExpress(app, incoming, response);
    const requestId = frontHeaders(req, res);
    res.locals.requestId = requestId;
    const inRoute = async (body: unknown) => {
      res.setHeader('Cache-Control', 'no-store');
      res.locals.apiKey = await deps.auth.resolveApiKey(req.get('x-api-key'));
      res.vary('Origin'); // checkOrigin, for a request without an Origin
      res.locals.body = await validateInput(RefreshLogoutDto, body ?? null);
      writeDataAnswer(res, presentTokens(await refresh(deps, req, res)));
      recordAnswer({ req, requestId, method: 'POST', path: REFRESH_PATH, status: 200, started });
    };
    readBody(req)
      .then(parseJsonText)
      .then(
        (body) => runInRequestContext(req, res, () => inRoute(body)).catch((error: unknown) => handOver({ error, requestId, at: 'route' })),
        (error: unknown) => handOver({ error, requestId, at: 'front' }),
      );
    return true;
  };
}
