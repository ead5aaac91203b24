import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { ReauthenticationDto } from '../dto/account-dtos';
import { TotpCodeDto, TotpVerifyDto } from '../dto/second-factor-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { signInClient } from '../middleware/client-address';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentUserLogin } from '../presenters';
import { presentSignIn } from '../second-factor-presenters';
import { keyed, limited, reauthenticated } from './guards';

/**
 * TOTP (the OpenAPI document). start / confirm / disable act for the signed-in user (API key + bearer);
 * start needs a recent sign-in or a proof in the body, disable a current code;
 * verify redeems a login challenge with the API key alone and answers the login bundle.
 */
export function twoFactorRoutes(deps: AppDeps): Router {
  const { totp } = deps.auth;
  return Router()
    .post('/api/auth/2fa/totp/start', ...keyed(deps), ...reauthenticated(deps), async (req, res) => {
      res.json({ data: await totp.start(apiKeyOf(res), bearerToken(req), bodyOf(res, ReauthenticationDto)) });
    })
    .post('/api/auth/2fa/totp/confirm', ...keyed(deps), validateBody(TotpCodeDto), limited(deps, 'totpCode'), async (req, res) => {
      res.json({ data: await totp.confirm(apiKeyOf(res), bearerToken(req), bodyOf(res, TotpCodeDto).code) });
    })
    .post('/api/auth/2fa/totp/disable', ...keyed(deps), validateBody(TotpCodeDto), limited(deps, 'totpCode'), async (req, res) => {
      await totp.disable(apiKeyOf(res), bearerToken(req), bodyOf(res, TotpCodeDto).code);
      res.json({ data: { success: true } });
    })
    .post('/api/auth/2fa/totp/verify', ...keyed(deps), validateBody(TotpVerifyDto), limited(deps, 'twoFactorVerify'), async (req, res) => {
      const signedIn = await totp.verify(apiKeyOf(res), bodyOf(res, TotpVerifyDto), { client: signInClient(req, res) });
      res.json({ data: presentSignIn({ twoFactorRequired: false, ...signedIn }, presentUserLogin) });
    });
}
