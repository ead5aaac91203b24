import { Router, type Request, type Response } from 'express';
import { sendError } from '../errors';
import { currentSession, type ProxyContext } from '../proxy-context';
import { clientIpOf } from '../request-guards';
import { pick } from './bodies';

/**
 * Our addition to the contract's table (POST only; docs/decisions.md): enrolment of a second
 * factor and of passkeys for the signed-in user, so a browser app behind the proxy can offer
 * "set up an authenticator app" and "add a passkey" without handling tokens itself.
 */
export function accountRoutes(ctx: ProxyContext): Router {
  const { svc } = ctx;
  /** The request's access token (refreshed if needed), or null after answering 401. */
  const signedIn = async (req: Request, res: Response) => {
    const session = await currentSession(ctx, req, res);
    if (!session) sendError(res, 401, 'invalid_token', 'No active session: sign in.');
    return session && { accessToken: session.accessToken, clientIp: clientIpOf(req) };
  };
  return Router()
    .post('/account/totp/start', async (req, res) => {
      const call = await signedIn(req, res);
      if (call) res.json({ data: await svc.totpStart(call) });
    })
    .post('/account/totp/confirm', async (req, res) => {
      const call = await signedIn(req, res);
      if (call) res.json({ data: await svc.totpConfirm(pick(req.body, ['code']) as { code: string }, call) });
    })
    .post('/account/totp/disable', async (req, res) => {
      const call = await signedIn(req, res);
      if (call) res.json({ data: await svc.totpDisable(pick(req.body, ['code']) as { code: string }, call) });
    })
    .post('/account/passkeys/options', async (req, res) => {
      const call = await signedIn(req, res);
      if (call) res.json({ data: { options: await svc.passkeyRegisterOptions(call) } });
    })
    .post('/account/passkeys/verify', async (req, res) => {
      const call = await signedIn(req, res);
      if (call) res.json({ data: await svc.passkeyRegisterVerify(pick(req.body, ['response', 'name']) as { response: unknown }, call) });
    });
}
