import { Router } from 'express';
import { isUuid, OIDC_ISSUER_ROUTE } from '@svc/core';
import type { AppDeps } from '../app-deps';

/**
 * The issuer's own pages (logout confirmation, form_post) post forms to the issuer and then
 * redirect to client-registered URIs, which helmet's `form-action 'self'` would block in some
 * browsers; oidc-provider adds the hash of each inline script it writes to script-src.
 */
const OIDC_CSP = "default-src 'none'; script-src 'self'; form-action 'self' https: http:; frame-ancestors 'none'; base-uri 'none'";

/**
 * `{base}/api/oidc/{projectId}/*` (docs/decisions.md#hosted-oidc-provider): discovery, authorize, token, userinfo, jwks,
 * revocation and end-session, served by oidc-provider. Mounted before the JSON body parser: the
 * token endpoint takes form bodies. Answers are OAuth-style `{ error, error_description }`.
 */
export function oidcProviderRoutes(deps: AppDeps): Router {
  const router = Router();
  const oidc = deps.oidc;
  if (!oidc) return router;
  return router.use(OIDC_ISSUER_ROUTE, async (req, res) => {
    const projectId = req.params.projectId;
    res.setHeader('Content-Security-Policy', OIDC_CSP);
    if (!isUuid(projectId)) {
      res.status(404).set('Cache-Control', 'no-store').json({ error: 'invalid_request', error_description: 'There is no OIDC issuer at this address.' });
      return;
    }
    await oidc.provider.handle(req, res, projectId);
  });
}
