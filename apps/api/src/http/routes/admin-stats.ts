import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { StatsQuery } from '../dto/stats-dtos';
import { queryOf, validateQuery } from '../middleware/validate';
import { scopeParam } from './params';

/**
 * Sign-ins, sign-ups, refused sign-ins and rate-limited requests of one project environment per
 * UTC day. This instance's refusals not yet flushed are stored first, so an operator sees them at
 * once; other instances' arrive with their next flush (docs/decisions.md, "Rate-limited requests
 * per environment").
 */
export function adminStatsRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router().get('/projects/:id/environments/:env/stats', validateQuery(StatsQuery, { refuseUnknown: true }), async (req, res) => {
    const scope = await scopeParam(deps.auth, req);
    await deps.rateLimitedTally?.flush().catch((error: unknown) => deps.logger.warn({ err: error, requestId: res.locals.requestId }, 'rate-limited counts not stored before a stats read'));
    res.json({ data: await admin.activityStats(scope, { days: queryOf(res, StatsQuery).days }) });
  });
}
