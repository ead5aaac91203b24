import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { OidcGrantDto } from '../dto/oidc-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { keyed } from './guards';

/**
 * POST /api/auth/oidc/grant -> { redirectUrl } that resumes the OIDC flow in
 * the user's browser. Pro only (403 plan_upgrade_required); a bad, used, expired or other
 * environment's request token is 401 invalid_token (see grantOidcRequest for every code).
 */
export function oidcGrantRoutes(deps: AppDeps): Router {
  const oidc = deps.oidc;
  if (!oidc) return Router();
  return Router().post('/api/auth/oidc/grant', ...keyed(deps), validateBody(OidcGrantDto), async (_req, res) => {
    res.json({ data: await oidc.service.grant(apiKeyOf(res), bodyOf(res, OidcGrantDto)) });
  });
}
