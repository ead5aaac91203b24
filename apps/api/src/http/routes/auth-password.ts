import { Router } from 'express';
import { PasswordResetDto, PasswordUpdateDto } from '../dto/email-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { PASSWORD_RESET_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { mailRequestHandlers, type MailRequest } from './mail-request';
import type { MailRouteDeps } from '../app-deps';
import { keyed, limited } from './guards';

const PASSWORD_RESET_PATH = '/api/auth/password/reset';

/**
 * POST /api/auth/password/reset (`reset`, from passwordResetRequest) and /update. The reset request always answers success, before it looks the
 * address up, and sends nothing inline (the link goes out through the outbox); the update revokes
 * every session of the user.
 */
export function passwordRoutes(deps: MailRouteDeps, reset: MailRequest<PasswordResetDto>): Router {
  return Router()
    .post(reset.path, ...mailRequestHandlers(deps, reset))
    .post('/api/auth/password/update', ...keyed(deps), validateBody(PasswordUpdateDto), limited(deps, 'passwordUpdate'), async (_req, res) => {
      await deps.auth.passwordReset.update(apiKeyOf(res), bodyOf(res, PasswordUpdateDto));
      res.json({ data: { success: true } });
    });
}

/** POST /api/auth/password/reset as a mail request (mail-request.ts): made once, for the route and its hot path. */
export function passwordResetRequest(deps: MailRouteDeps): MailRequest<PasswordResetDto> {
  return {
    path: PASSWORD_RESET_PATH,
    Dto: PasswordResetDto,
    limits: PASSWORD_RESET_LIMITS,
    kind: 'password_reset',
    accept: (_req, res, body) => deps.auth.passwordReset.accept(apiKeyOf(res), body),
  };
}
