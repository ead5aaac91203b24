import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { ChangePasswordDto, ReauthenticationDto } from '../dto/account-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { bodyOf, validateBody } from '../middleware/validate';
import { keyed, limited, reauthenticated } from './guards';

/**
 * Changes signed-in users make to their own account (API key + bearer), each under the recent
 * sign-in rule: a new password (proved by the current one), and deleting the account.
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
    });
}
