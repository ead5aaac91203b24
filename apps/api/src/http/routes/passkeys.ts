import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { ReauthenticationDto } from '../dto/account-dtos';
import { PasskeyLoginOptionsDto, PasskeyLoginVerifyDto, PasskeyRegisterDto } from '../dto/second-factor-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { signInClient } from '../middleware/client-address';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentUserLogin } from '../presenters';
import { presentPasskey, presentSignIn } from '../second-factor-presenters';
import { keyed, reauthenticated } from './guards';
import { idParam } from './params';

const passkeyNotFound = () => new AuthError('not_found', 'Passkey not found.');

/**
 * Passkeys (the OpenAPI document). Registration, list and revoke act for the signed-in user (API key +
 * bearer); adding and removing one need a recent sign-in or a proof in the body; sign-in needs the API key alone and answers the login bundle.
 */
export function passkeyRoutes(deps: AppDeps): Router {
  const { passkeys } = deps.auth;
  return Router()
    .post('/api/auth/passkeys/register/options', ...keyed(deps), ...reauthenticated(deps), async (req, res) => {
      res.json({ data: await passkeys.registrationOptions(apiKeyOf(res), bearerToken(req), bodyOf(res, ReauthenticationDto)) });
    })
    .post('/api/auth/passkeys/register/verify', ...keyed(deps), validateBody(PasskeyRegisterDto), async (req, res) => {
      const passkey = await passkeys.register(apiKeyOf(res), bearerToken(req), bodyOf(res, PasskeyRegisterDto));
      res.json({ data: { passkey: presentPasskey(passkey) } });
    })
    .get('/api/auth/passkeys', ...keyed(deps), async (req, res) => {
      const list = await passkeys.list(apiKeyOf(res), bearerToken(req));
      res.json({ data: { passkeys: list.map(presentPasskey) } });
    })
    .delete('/api/auth/passkeys/:id', ...keyed(deps), ...reauthenticated(deps), async (req, res) => {
      await passkeys.remove(apiKeyOf(res), bearerToken(req), idParam(req.params.id, passkeyNotFound), bodyOf(res, ReauthenticationDto));
      res.json({ data: { success: true } });
    })
    .post('/api/auth/passkeys/login/options', ...keyed(deps), validateBody(PasskeyLoginOptionsDto), async (_req, res) => {
      res.json({ data: await passkeys.loginOptions(apiKeyOf(res), bodyOf(res, PasskeyLoginOptionsDto)) });
    })
    .post('/api/auth/passkeys/login/verify', ...keyed(deps), validateBody(PasskeyLoginVerifyDto), async (req, res) => {
      const signedIn = await passkeys.logIn(apiKeyOf(res), bodyOf(res, PasskeyLoginVerifyDto), { client: signInClient(req, res) });
      res.json({ data: presentSignIn({ twoFactorRequired: false, ...signedIn }, presentUserLogin) });
    });
}
