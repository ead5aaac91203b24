import { Router } from 'express';
import { sendError } from '../errors';
import { currentSession, type ProxyContext } from '../proxy-context';
import { clientIpOf } from '../request-guards';
import { pick } from './bodies';
import { answerSignIn } from './sign-in-routes';

/** Provider slugs as the API names them (google, github, discord, oidc). Anything else never reaches a URL. */
const PROVIDER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** POST oauth/exchange, oauth/{provider}, oidc/grant. */
export function federationRoutes(ctx: ProxyContext): Router {
  const { svc } = ctx;
  return Router()
    // Declared before oauth/:provider, so "exchange" is never taken for a provider slug.
    .post('/oauth/exchange', async (req, res) => {
      const body = pick(req.body, ['code']) as { code: string };
      const result = await svc.oauthExchange(body, { clientIp: clientIpOf(req) });
      answerSignIn(ctx, res, result, 200, 'provider' in result ? { provider: result.provider } : {});
    })
    .post('/oauth/:provider', async (req, res) => {
      const provider = String(req.params.provider);
      if (!PROVIDER.test(provider)) return sendError(res, 400, 'validation_error', 'Unknown provider.');
      const body = pick(req.body, ['redirectUrl', 'state']);
      const { authorizationUrl } = await svc.oauthInitiate(provider, body, { clientIp: clientIpOf(req) });
      res.json({ data: { authorizationUrl } });
    })
    // The user id of an approval comes from the session, never from the browser; a denial
    // issues no code and needs no session.
    .post('/oidc/grant', async (req, res) => {
      const body = pick(req.body, ['requestToken', 'approved', 'scopes']) as { requestToken: string; approved: boolean; scopes?: string[] };
      let userId: string | undefined;
      if (body.approved === true) {
        const session = await currentSession(ctx, req, res);
        if (!session) return sendError(res, 401, 'invalid_token', 'Sign in before approving.');
        userId = session.user.id;
      }
      res.json({ data: await svc.oidcGrant({ ...body, userId }, { clientIp: clientIpOf(req) }) });
    });
}
