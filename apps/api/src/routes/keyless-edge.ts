import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app';
import { projectQueryCors } from '../middleware/cors';
import { limited } from './guards';

/** Contract endpoint 7, the one browser-facing route without an API key. */
export const MAGIC_LINK_VERIFY_PATH = '/api/auth/magic-link/verify';

/**
 * The edge of GET /api/auth/magic-link/verify, applied here by path so the route itself (in its
 * own file) stays "validate, call, respond": CORS from the project named by the `project` query,
 * and the `magicLinkVerify` limit by the socket address (no key, so X-Svc-Client-Ip is ignored).
 * HEAD is refused with 404 rather than routed to the GET handler (Express answers HEAD with GET
 * routes): a link checker's or mail scanner's HEAD must never consume a token (DESIGN §4a).
 */
export function keylessEdgeRoutes(deps: AppDeps): Router {
  return Router()
    .head(MAGIC_LINK_VERIFY_PATH, () => {
      throw new AuthError('not_found', 'No such endpoint.');
    })
    .get(MAGIC_LINK_VERIFY_PATH, projectQueryCors(deps.auth.magicLink.allowedOrigins), limited(deps, 'magicLinkVerify'));
}
