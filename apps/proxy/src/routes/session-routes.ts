import { Router } from 'express';
import { isSvcError } from '@svc/sdk';
import { sendError } from '../errors';
import { currentSession, isUnauthenticated, refreshInto, type ProxyContext } from '../proxy-context';
import { clientIpOf } from '../request-guards';
import { optionalString } from './bodies';

/** GET session, POST refresh, POST logout. */
export function sessionRoutes(ctx: ProxyContext): Router {
  return Router()
    .get('/session', async (req, res) => {
      res.set('Cache-Control', 'no-store');
      // Branding is asked in parallel: it is cached, and never worth a second round trip.
      const [session, poweredByService] = await Promise.all([
        currentSession(ctx, req, res).catch((error: unknown) => {
          // A banned user's cookies are useless from now on; drop them, then report the ban.
          if (isSvcError(error) && error.code === 'user_banned') ctx.cookies.clear(res);
          throw error;
        }),
        ctx.branding.poweredByService(),
      ]);
      if (!session) {
        ctx.cookies.clear(res);
        return sendError(res, 401, 'invalid_token', 'No active session: sign in.');
      }
      res.json({ data: { user: session.user, poweredByService } });
    })
    .post('/refresh', async (req, res) => {
      const refreshToken = optionalString(req.body, 'refreshToken') ?? ctx.cookies.refresh(req);
      if (!refreshToken) return sendError(res, 401, 'invalid_refresh_token', 'No refresh token: sign in.');
      try {
        const { expiresIn } = await refreshInto(ctx, req, res, refreshToken);
        res.json({ data: { expiresIn } });
      } catch (error) {
        if (isUnauthenticated(error)) ctx.cookies.clear(res);
        throw error;
      }
    })
    .post('/logout', async (req, res) => {
      const refreshToken = optionalString(req.body, 'refreshToken') ?? ctx.cookies.refresh(req);
      ctx.cookies.clear(res);
      // Signing out must work even when the API cannot be reached: the cookies are gone either
      // way, and the session then simply expires. The failure is reported to onError.
      if (refreshToken) await ctx.svc.logout({ refreshToken }, { clientIp: clientIpOf(req) }).catch(ctx.options.onError);
      res.json({ data: { success: true } });
    });
}
