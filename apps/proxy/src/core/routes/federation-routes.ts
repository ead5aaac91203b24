import { currentSession } from '../session';
import { pick } from './bodies';
import type { ProxyRoute } from './route';
import { answerSignIn } from './sign-in-routes';

/** Provider slugs as the API names them (google, github, discord, oidc). Anything else never reaches a URL. */
const PROVIDER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** POST oauth/exchange, oauth/{provider}, oidc/grant. */
export const federationRoutes: ProxyRoute[] = [
  // Listed before oauth/:provider, so "exchange" is never taken for a provider slug.
  {
    method: 'POST',
    path: '/oauth/exchange',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['code']) as { code: string };
      const result = await ctx.svc.oauthExchange(body, ex.signInCall());
      answerSignIn(ctx, ex, result, 200, 'provider' in result ? { provider: result.provider } : {});
    },
  },
  {
    method: 'POST',
    path: '/oauth/:provider',
    async handle(ctx, ex) {
      const provider = ex.params.provider ?? '';
      if (!PROVIDER.test(provider)) return ex.fail(400, 'validation_error', 'Unknown provider.');
      const body = pick(ex.body, ['redirectUrl', 'state']);
      const { authorizationUrl } = await ctx.svc.oauthInitiate(provider, body, ex.call());
      ex.ok({ authorizationUrl });
    },
  },
  // The user id of an approval comes from the session, never from the browser; a denial
  // issues no code and needs no session.
  {
    method: 'POST',
    path: '/oidc/grant',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['requestToken', 'approved', 'scopes']) as { requestToken: string; approved: boolean; scopes?: string[] };
      let userId: string | undefined;
      if (body.approved === true) {
        const session = await currentSession(ctx, ex);
        if (!session) return ex.fail(401, 'invalid_token', 'Sign in before approving.');
        userId = session.user.id;
      }
      ex.ok(await ctx.svc.oidcGrant({ ...body, userId }, ex.call()));
    },
  },
];
