import { Router } from 'express';
import { isAuthError, type AuthService, type User } from '@svc/core';
import type { Logger } from 'pino';
import type { AppDeps } from '../app-deps';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerRecorder, dataAnswerWriter, frontHeaders, hotPathRouteFailure, writeDataAnswer, type HotPath } from '../hot-path';
import type { Metrics } from '../metrics';
import { apiKeyOf } from '../middleware/api-key';
import { BEARER, bearerToken } from '../middleware/bearer';
import { chooseRequestId } from '../middleware/request-id';
import { presentUserMe } from '../presenters';
import { keyed } from './guards';

const ME_PATH = '/api/auth/me';

/** What the route's middleware sets after the front's headers: noStore (/api/auth), then checkOrigin's Vary. */
const ME_ROUTE_HEADERS = ['Cache-Control', 'no-store', 'Vary', 'Origin'] as const;

/** GET /api/auth/me with X-API-Key and a bearer access token -> { user: UserMe }. */
export function meRoutes(deps: AppDeps): Router {
  return Router().get(ME_PATH, hotPathRouteFailure(), ...keyed(deps), async (req, res) => {
    writeDataAnswer(res, meData(await deps.auth.getMe(apiKeyOf(res), bearerToken(req))));
  });
}

function meData(user: User) {
  return { user: presentUserMe(user) };
}

export interface MeHotPathDeps {
  auth: Pick<AuthService, 'resolveApiKey' | 'getMe'>;
  metrics: Metrics;
  logger: Logger;
}

/**
 * The request every page view of a customer's app makes, from a server (the SDK, the session
 * proxy), answered without Express (hot-path.ts). A request whose key, token, user or session does
 * not check out is handed to Express to run again (getMe only reads), so one place decides every
 * failure; a database that did not answer in time would not answer a second time either, so that
 * failure is handed over as it is. Requests with an Origin (browsers: CORS), a body, a query
 * string or another method always go to Express.
 */
export function meHotPath(deps: MeHotPathDeps): HotPath {
  const recordAnswer = answerRecorder(deps.logger, deps.metrics);
  const answer = dataAnswerWriter(ME_ROUTE_HEADERS);
  /**
   * One async function rather than a chain of `then`s: each hop of a chain is a promise of its
   * own, and with an AsyncLocalStorage in the process (request-context.ts) every promise runs its
   * hooks (bench/README.md, round 7).
   */
  const serve = async (req: IncomingMessage, res: ServerResponse, handOver: Parameters<HotPath>[2], apiKey: string, token: string) => {
    const started = process.hrtime.bigint();
    let keyed = false;
    try {
      const key = await deps.auth.resolveApiKey(apiKey);
      keyed = true;
      const user = await deps.auth.getMe(key, token);
      const requestId = chooseRequestId(req.headers['x-request-id']);
      answer(res, requestId, meData(user));
      recordAnswer({ req, requestId, method: 'GET', path: ME_PATH, status: 200, started });
    } catch (error: unknown) {
      if (!isAuthError(error, 'service_unavailable')) return handOver();
      // What the middleware in front of the route sets, in its order (request id, helmet,
      // no-store; checkOrigin's Vary once the key is known).
      const requestId = frontHeaders(req, res);
      res.setHeader('Cache-Control', 'no-store');
      if (keyed) res.setHeader('Vary', 'Origin');
      handOver({ error, requestId, at: 'route' });
    }
  };
  return (req, res, handOver) => {
    const headers = req.headers;
    if (req.method !== 'GET' || req.url !== ME_PATH || headers.origin !== undefined) return false;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
    const apiKey = headers['x-api-key'];
    const token = BEARER.exec(headers.authorization ?? '')?.[1];
    if (typeof apiKey !== 'string' || token === undefined) return false;
    void serve(req, res, handOver, apiKey, token);
    return true;
  };
}
