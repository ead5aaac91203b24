import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { AuthError } from '@svc/core';
import { ChangePasswordDto, EmailChangeConfirmDto, EmailChangeDto, ReauthenticationDto } from '../dto/account-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { bodyOf, validateBody } from '../middleware/validate';
import { keyed, limited, reauthenticated } from './guards';

/**
 * Changes signed-in users make to their own account (API key + bearer), each under the recent
 * sign-in rule: a new password (proved by the current one), a new e-mail address (confirmed
 * from its mailbox: by link with the API key alone, or by code from the signed-in user), and
 * deleting the account.
 */
export function accountRoutes(deps: AppDeps): Router {
  const { account } = deps.auth;
  return Router()
    .post('/api/auth/password/change', ...keyed(deps), validateBody(ChangePasswordDto), limited(deps, 'reauthenticate'), async (req, res) => {
      await account.changePassword(apiKeyOf(res), bearerToken(req), bodyOf(res, ChangePasswordDto));
      res.json({ data: { success: true } });
    })
    .delete('/api/auth/account', ...keyed(deps), ...reauthenticated(deps), async (req, res) => {
      await account.delete(apiKeyOf(res), bearerToken(req), bodyOf(res, ReauthenticationDto));
      res.json({ data: { success: true } });
    })
    .post('/api/auth/email/change', ...keyed(deps), validateBody(EmailChangeDto), limited(deps, 'reauthenticate', 'emailChange'), async (req, res) => {
      await deps.auth.emailChange.request(apiKeyOf(res), bearerToken(req), bodyOf(res, EmailChangeDto));
      res.json({ data: { success: true } });
    })
    .post('/api/auth/email/change/confirm', ...keyed(deps), validateBody(EmailChangeConfirmDto), limited(deps, 'emailVerify'), async (req, res) => {
      const { token, code } = bodyOf(res, EmailChangeConfirmDto);
      if ((token === undefined) === (code === undefined)) throw new AuthError('validation_error', 'Send either token, or code (with the access token).');
      const { emailChange } = deps.auth;
      const user = token !== undefined ? await emailChange.confirmLink(apiKeyOf(res), token) : await emailChange.confirmCode(apiKeyOf(res), bearerToken(req), code!);
      res.json({ data: { user: { id: user.id, email: user.email, emailVerified: user.emailVerified } } });
    });
}
