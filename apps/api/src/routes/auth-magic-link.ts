import { Router, type Request } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app';
import { MagicLinkDto } from '../dto/email-dtos';
import { presentMagicLinkUser } from '../email-presenters';
import { apiKeyOf } from '../middleware/api-key';
import { MAGIC_LINK_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentSignIn } from '../second-factor-presenters';
import { keyed, limited } from './guards';
import { MAGIC_LINK_VERIFY_PATH } from './keyless-edge';

/**
 * Contract endpoints 6 and 7. POST /api/auth/magic-link always answers success (no enumeration).
 * GET /api/auth/magic-link/verify has no key: its CORS, its per-address limit and the refusal of
 * HEAD are applied before it, by path, in keyless-edge.ts; a TOTP user gets the challenge.
 */
export function magicLinkRoutes(deps: AppDeps): Router {
  return Router()
    .post('/api/auth/magic-link', ...keyed(deps), validateBody(MagicLinkDto), limited(deps, ...MAGIC_LINK_LIMITS), async (_req, res) => {
      await deps.auth.magicLink.request(apiKeyOf(res), bodyOf(res, MagicLinkDto));
      res.json({ data: { success: true } });
    })
    .get(MAGIC_LINK_VERIFY_PATH, async (req, res) => {
      const { project, token } = linkQuery(req);
      const result = await deps.auth.magicLink.verify(await deps.auth.magicLink.project(project), token);
      res.json({ data: presentSignIn(result, presentMagicLinkUser) });
    });
}

/** `project` and `token`, one string each; a link without them is just an invalid link. */
function linkQuery(req: Request): { project: string; token: string } {
  const { project, token } = req.query;
  if (typeof project !== 'string' || typeof token !== 'string' || token.length > 512) throw new AuthError('invalid_magic_link');
  return { project, token };
}
