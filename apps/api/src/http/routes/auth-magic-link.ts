import { Router, type Request, type Response } from 'express';
import type { MailRouteDeps } from '../app-deps';
import { MagicLinkCodeDto, MagicLinkDto } from '../dto/email-dtos';
import { presentMagicLinkUser } from '../email-presenters';
import { signInClient } from '../middleware/client-address';
import { presentSignIn } from '../second-factor-presenters';
import { apiKeyOf } from '../middleware/api-key';
import { deferredHit } from '../middleware/rate-limit';
import { MAGIC_LINK_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { mailRequestHandlers, type MailRequest } from './mail-request';
import { keyed, limited, limitOptions } from './guards';

const MAGIC_LINK_PATH = '/api/auth/magic-link';

/**
 * POST /api/auth/magic-link (`request`, from magicLinkRequest) always answers success (no enumeration),
 * before it looks at any account; creating a user spends the client address's sign-up budget.
 * Following the link, GET /api/auth/magic-link/verify, is auth-magic-link-verify.ts; the mail's
 * code instead of its link is POST /api/auth/magic-link/verify-code, here.
 */
export function magicLinkRoutes(deps: MailRouteDeps, request: MailRequest<MagicLinkDto>): Router {
  return Router()
    .post(request.path, ...mailRequestHandlers(deps, request))
    .post('/api/auth/magic-link/verify-code', ...keyed(deps), validateBody(MagicLinkCodeDto), limited(deps, 'magicLinkCode'), async (req, res) => {
      const result = await deps.auth.magicLink.verifyCode(apiKeyOf(res), bodyOf(res, MagicLinkCodeDto), { client: signInClient(req, res) });
      res.json({ data: presentSignIn(result, presentMagicLinkUser) });
    });
}

/** POST /api/auth/magic-link as a mail request (mail-request.ts): made once, for the route and its hot path. */
export function magicLinkRequest(deps: MailRouteDeps): MailRequest<MagicLinkDto> {
  return {
    path: MAGIC_LINK_PATH,
    Dto: MagicLinkDto,
    limits: MAGIC_LINK_LIMITS,
    kind: 'magic_link',
    accept: (req, res, body) => deps.auth.magicLink.accept(apiKeyOf(res), body, { mayCreateUser: creationBudget(deps, req, res) }),
  };
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
