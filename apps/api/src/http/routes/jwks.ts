import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { environmentParam, idParam, projectNotFound } from './params';

/** Verifiers re-fetch at most every five minutes; rotation keeps old keys published far longer. */
const CACHE_SECONDS = 300;

/**
 * GET /api/projects/{projectId}/{environment}/jwks.json, no key needed. The body is a
 * bare JWK Set (RFC 7517 §5), not the `{ data }` envelope: JOSE libraries (jose's
 * createRemoteJWKSet and the like) read `keys` at the top level.
 */
export function jwksRoutes(deps: AppDeps): Router {
  return Router().get('/api/projects/:projectId/:environment/jwks.json', async (req, res) => {
    const projectId = idParam(req.params.projectId, projectNotFound);
    const environment = environmentParam(req.params.environment);
    const jwks = await deps.auth.jwks({ projectId, environment });
    res.set('Cache-Control', `public, max-age=${CACHE_SECONDS}`).json(jwks);
  });
}
