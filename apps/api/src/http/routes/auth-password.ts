import { Router } from 'express';
import { PasswordResetDto, PasswordUpdateDto } from '../dto/email-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { PASSWORD_RESET_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { answerSuccessThen } from './answer-first';
import type { MailRouteDeps } from '../app-deps';
import { keyed, limited } from './guards';

/**
 * POST /api/auth/password/reset and /update. The reset request always answers success, before it looks the
 * address up, and sends nothing inline (the link goes out through the outbox); the update revokes
 * every session of the user.
 */
export function passwordRoutes(deps: MailRouteDeps): Router {
  return Router()
    .post('/api/auth/password/reset', ...keyed(deps), validateBody(PasswordResetDto), limited(deps, ...PASSWORD_RESET_LIMITS), async (_req, res) => {
      await answerSuccessThen(deps.afterAnswer, res, 'password_reset', deps.auth.passwordReset.accept(apiKeyOf(res), bodyOf(res, PasswordResetDto)));
    })
    .post('/api/auth/password/update', ...keyed(deps), validateBody(PasswordUpdateDto), limited(deps, 'passwordUpdate'), async (_req, res) => {
      await deps.auth.passwordReset.update(apiKeyOf(res), bodyOf(res, PasswordUpdateDto));
      res.json({ data: { success: true } });
    });
}
