import { Router, type Request, type Response } from 'express';
import { AuthError } from '@svc/core';
import type { MailRouteDeps } from '../app-deps';
import { MagicLinkDto } from '../dto/email-dtos';
import { presentMagicLinkUser } from '../email-presenters';
import { apiKeyOf } from '../middleware/api-key';
import { deferredHit } from '../middleware/rate-limit';
import { MAGIC_LINK_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentSignIn } from '../second-factor-presenters';
import { answerSuccessThen } from './answer-first';
import { keyed, limited, limitOptions } from './guards';
import { MAGIC_LINK_VERIFY_PATH } from './auth-magic-link-verify';

/**
 * Contract endpoints 6 and 7. POST /api/auth/magic-link always answers success (no enumeration),
 * before it looks at any account; creating a user spends the client address's sign-up budget.
 * GET /api/auth/magic-link/verify has no key: its CORS, its per-address limit and the refusal of
 * HEAD are applied before it, by path, in keyless-edge.ts; a TOTP user gets the challenge.
 */
export function magicLinkRoutes(deps: MailRouteDeps): Router {
  return Router()
    .post('/api/auth/magic-link', ...keyed(deps), validateBody(MagicLinkDto), limited(deps, ...MAGIC_LINK_LIMITS), async (req, res) => {
      const work = deps.auth.magicLink.accept(apiKeyOf(res), bodyOf(res, MagicLinkDto), { mayCreateUser: creationBudget(deps, req, res) });
      await answerSuccessThen(deps.afterAnswer, res, 'magic_link', work);
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

/**
 * A user created by a magic link counts against the same per-address budget as a sign-up (the
 * `signup` limit), so one client cannot fill a plan's user limit through magic links. Over it:
 * nobody is created and no mail is sent; the caller has already heard success (the answer may not
 * tell whether the address had an account), so the refusal is a log line and a metric.
 */
function creationBudget(deps: MailRouteDeps, req: Request, res: Response): () => Promise<boolean> {
  const hit = deferredHit('signup', limitOptions(deps), req, res);
  return async () => {
    const decision = await hit();
    if (!decision || decision.allowed) return true;
    deps.metrics.magicLinkUsersRefused.inc();
    deps.logger.warn({ requestId: res.locals.requestId, limit: 'signup' }, "magic link: the client address's sign-up budget is spent; no user created, no mail sent");
    return false;
  };
}
