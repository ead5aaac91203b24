import { Router, type Request } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { presentMagicLinkUser } from '../email-presenters';
import { signInClient } from '../middleware/client-address';
import { projectQueryCors } from '../middleware/cors';
import { presentSignIn } from '../second-factor-presenters';
import { limited } from './guards';

/** `GET /api/auth/magic-link/verify`, the one browser-facing route without an API key. */
const MAGIC_LINK_VERIFY_PATH = '/api/auth/magic-link/verify';

/**
 * GET /api/auth/magic-link/verify, all of its edge in one router: CORS from the project named by
 * the `project` query, and the `magicLinkVerify` limit by the socket address (no key, so
 * X-Svc-Client-Ip is ignored); a TOTP user gets the challenge. HEAD is refused with 404 rather
 * than routed to the GET handler (Express answers HEAD with GET routes): a link checker's or
 * mail scanner's HEAD must never consume a token (docs/security.md).
 */
export function magicLinkVerifyRoutes(deps: AppDeps): Router {
  return Router()
    .head(MAGIC_LINK_VERIFY_PATH, () => {
      throw new AuthError('not_found', 'No such endpoint.');
    })
    .get(MAGIC_LINK_VERIFY_PATH, projectQueryCors(deps.auth.magicLink.allowedOrigins), limited(deps, 'magicLinkVerify'), async (req, res) => {
      const { project, token } = linkQuery(req);
      const result = await deps.auth.magicLink.verify(await deps.auth.magicLink.project(project), token, { client: signInClient(req, res) });
      res.json({ data: presentSignIn(result, presentMagicLinkUser) });
    });
}

/** `project` and `token`, one string each; a link without them is just an invalid link. */
function linkQuery(req: Request): { project: string; token: string } {
  const { project, token } = req.query;
  if (typeof project !== 'string' || typeof token !== 'string' || token.length > 512) throw new AuthError('invalid_magic_link');
  return { project, token };
}
