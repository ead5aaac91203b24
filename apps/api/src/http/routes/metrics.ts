import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import type { Metrics } from '../metrics';
import { requireAdmin } from '../middleware/admin-auth';

/**
 * GET /metrics in Prometheus text format, on the API's own port, behind a bearer token: the admin
 * token, or SVC_METRICS_TOKEN, which opens nothing else and so is the one to give a scraper.
 * One port and one auth scheme keep the deployment simple; without the token it is 401 like /admin.
 */
export function metricsRoutes(deps: AppDeps, metrics: Metrics): Router {
  const tokens = deps.config.metricsToken ? [deps.config.metricsToken] : [];
  return Router().get('/metrics', requireAdmin(deps.config.adminToken, ...tokens), async (_req, res) => {
    const text = await metrics.registry.metrics();
    res.set('Cache-Control', 'no-store').type(metrics.registry.contentType).send(text);
  });
}
