import { isSvcError, type UserMe } from '@svc/sdk';
import { isUnauthenticated } from '../errors';
import type { Exchange } from '../exchange';
import { currentSession, refreshInto } from '../session';
import { optionalString } from './bodies';
import type { ProxyRoute } from './route';

/** GET session's answer for a signed-in user: the route's, and the standalone server's shortcut's (proxy-core.ts). */
export function answerSession(ex: Exchange, user: UserMe, poweredByService: boolean): void {
  ex.answer.headers['Cache-Control'] = 'no-store';
  ex.ok({ user, poweredByService });
}

/** GET session: the signed-in user, through the access cookie or else a refresh. */
export const getSessionRoute: ProxyRoute = {
  method: 'GET',
  path: '/session',
  async handle(ctx, ex) {
    ex.answer.headers['Cache-Control'] = 'no-store';
    // Branding is asked in parallel: it is cached, and never worth a second round trip.
    const [session, poweredByService] = await Promise.all([
      currentSession(ctx, ex).catch((error: unknown) => {
        // A banned user's cookies are useless from now on; drop them, then report the ban.
        if (isSvcError(error) && error.code === 'user_banned') ctx.cookies.clear(ex);
        throw error;
      }),
      ctx.branding.poweredByService(),
    ]);
    if (!session) {
      ctx.cookies.clear(ex);
      return ex.fail(401, 'invalid_token', 'No active session: sign in.');
    }
    answerSession(ex, session.user, poweredByService);
  },
};

/** GET session, POST refresh, POST logout. */
export const sessionRoutes: ProxyRoute[] = [
  getSessionRoute,
  {
    method: 'POST',
    path: '/refresh',
    async handle(ctx, ex) {
      const fromBody = optionalString(ex.body, 'refreshToken');
      if (!fromBody && ex.cookies.duplicated) {
        ctx.cookies.clear(ex);
        return ex.fail(401, 'invalid_refresh_token', 'Conflicting session cookies: sign in again.');
      }
      const refreshToken = fromBody ?? ex.cookies.refresh;
      if (!refreshToken) return ex.fail(401, 'invalid_refresh_token', 'No refresh token: sign in.');
      try {
        const { expiresIn } = await refreshInto(ctx, ex, refreshToken);
        ex.ok({ expiresIn });
      } catch (error) {
        if (isUnauthenticated(error)) ctx.cookies.clear(ex);
        throw error;
      }
    },
  },
  {
    method: 'POST',
    path: '/logout',
    async handle(ctx, ex) {
      // With conflicting copies no cookie is revoked: one of them is someone else's session.
      const refreshToken = optionalString(ex.body, 'refreshToken') ?? ex.cookies.refresh;
      ctx.cookies.clear(ex);
      // Signing out must work even when the API cannot be reached: the cookies are gone either
      // way, and the session then simply expires. The failure is reported to onError.
      if (refreshToken) await ctx.svc.logout({ refreshToken }, ex.call()).catch(ctx.options.onError);
      ex.ok({ success: true });
    },
  },
];
