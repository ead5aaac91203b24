import { Router } from 'express';
import type { AppDeps } from '../app';
import { PasswordResetDto, PasswordUpdateDto } from '../dto/email-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { PASSWORD_RESET_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { keyed, limited } from './guards';

/**
 * Contract endpoints 8 and 9. The reset request always answers success and sends nothing inline
 * (the link goes out through the outbox); the update revokes every session of the user.
 */
export function passwordRoutes(deps: AppDeps): Router {
  return Router()
    .post('/api/auth/password/reset', ...keyed(deps), validateBody(PasswordResetDto), limited(deps, ...PASSWORD_RESET_LIMITS), async (_req, res) => {
      await deps.auth.passwordReset.request(apiKeyOf(res), bodyOf(res, PasswordResetDto));
      res.json({ data: { success: true } });
    })
    .post('/api/auth/password/update', ...keyed(deps), validateBody(PasswordUpdateDto), limited(deps, 'passwordUpdate'), async (_req, res) => {
      await deps.auth.passwordReset.update(apiKeyOf(res), bodyOf(res, PasswordUpdateDto));
      res.json({ data: { success: true } });
    });
}
