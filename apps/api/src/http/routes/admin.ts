import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { requireAdmin } from '../middleware/admin-auth';
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

/**
 * The admin API (DESIGN §12), mounted at /admin. The token is checked before routing, so without
 * it every /admin path answers 401 and the route map is not revealed.
 */
export function adminRoutes(deps: AppDeps): Router {
  return Router()
    .use(requireAdmin(deps.config.adminToken), actAs({ type: 'admin', via: 'admin_token' }))
    .use(adminProjectRoutes(deps), adminApiKeyRoutes(deps), adminSigningKeyRoutes(deps), adminUserRoutes(deps), adminOutboxRoutes(deps))
    .use(adminOAuthProviderRoutes(deps))
    .use(adminOidcClientRoutes(deps))
    .use(adminAuditLogRoutes(deps), adminWebhookRoutes(deps));
}
