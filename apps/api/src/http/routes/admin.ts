import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import type { ConsoleSessions } from '../console-session';
import { requireAdminOrConsole } from '../middleware/admin-auth';
import { limited } from './guards';
import { actAs } from '../request-context';
import { adminApiKeyRoutes } from './admin-api-keys';
import { adminProjectRoutes } from './admin-projects';
import { adminSigningKeyRoutes } from './admin-signing-keys';
import { adminUserRoutes } from './admin-users';
import { adminOAuthProviderRoutes } from './admin-oauth-providers';
import { adminOutboxRoutes } from './admin-outbox';
import { adminOidcClientRoutes } from './admin-oidc-clients';
import { adminAuditLogRoutes } from './admin-audit-log';
import { adminWebhookRoutes } from './admin-webhooks';
import { adminStatsRoutes } from './admin-stats';

/**
 * The admin API (the OpenAPI document), mounted at /admin. The token is checked before routing, so without
 * it every /admin path answers 401 and the route map is not revealed. Every request, with a token
 * or not, counts toward the `admin` limit of its address. The console calls it with its session
 * cookie and CSRF header instead of the token (console-session.ts).
 */
export function adminRoutes(deps: AppDeps, consoleSessions: ConsoleSessions): Router {
  return (
    Router()
      .use(limited(deps, 'admin'))
      .use(requireAdminOrConsole(deps.config.adminToken, consoleSessions))
      // The actor of every event an admin request causes: a bearer is the admin token, else the guard accepted a console session.
      .use((req, res, next) => actAs({ type: 'admin', via: req.get('authorization') === undefined ? 'console' : 'admin_token' })(req, res, next))
      .use(adminProjectRoutes(deps), adminApiKeyRoutes(deps), adminSigningKeyRoutes(deps), adminUserRoutes(deps), adminOutboxRoutes(deps))
      .use(adminOAuthProviderRoutes(deps))
      .use(adminOidcClientRoutes(deps))
      .use(adminAuditLogRoutes(deps), adminWebhookRoutes(deps))
      .use(adminStatsRoutes(deps))
  );
}
