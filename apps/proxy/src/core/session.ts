import type { SvcClient, TokenBundle, UserMe } from '@svc/sdk';
import type { BrandingCache } from './branding-cache';
import type { SessionCookies } from './cookies';
import { isUnauthenticated } from './errors';
import type { Exchange } from './exchange';
import type { ResolvedProxyOptions } from './options';
import type { RefreshFlights } from './refresh-flights';

/** A rotation and the device id it was made with (shared by every request that joined it). */
interface Rotation {
  tokens: TokenBundle;
  deviceId: string | undefined;
}

/** What every route of one proxy shares. */
export interface ProxyContext {
  svc: SvcClient;
  options: ResolvedProxyOptions;
  cookies: SessionCookies;
  flights: RefreshFlights<Rotation>;
  branding: BrandingCache;
}

/** A signed-in browser: the live user and an access token that works now. */
export interface CurrentSession {
  user: UserMe;
  accessToken: string;
}

/** Rotates `refreshToken` once per burst (single flight) and stores the successor in the cookies. */
export async function refreshInto(ctx: ProxyContext, ex: Exchange, refreshToken: string): Promise<TokenBundle> {
  const call = ex.signInCall();
  const { tokens, deviceId } = await ctx.flights.run(refreshToken, async () => ({
    tokens: await ctx.svc.refresh({ refreshToken }, call),
    deviceId: call.deviceId,
  }));
  ex.adoptDeviceId(deviceId);
  ctx.cookies.set(ex, tokens);
  return tokens;
}

/**
 * The session of the request's cookies, or null when there is none. The access cookie is asked
 * about at the API's /me (which also sees logouts and bans); when it is missing, expired or
 * refused, the refresh cookie is rotated and /me asked again with the new access token.
 * Duplicated cookies are no session (and are cleared). Errors other than "not signed in" (a ban, the API down)
 * are thrown.
 */
export async function currentSession(ctx: ProxyContext, ex: Exchange): Promise<CurrentSession | null> {
  const { access, refresh, duplicated } = ex.cookies;
  if (duplicated) {
    ctx.cookies.clear(ex);
    return null;
  }
  if (access) {
    try {
      return { user: (await ctx.svc.me({ accessToken: access, clientIp: ex.clientIp })).user, accessToken: access };
    } catch (error) {
      if (!isUnauthenticated(error)) throw error;
    }
  }
  if (!refresh) return null;
  let tokens: TokenBundle;
  try {
    tokens = await refreshInto(ctx, ex, refresh);
  } catch (error) {
    if (isUnauthenticated(error)) return null;
    throw error;
  }
  return { user: (await ctx.svc.me({ accessToken: tokens.accessToken, clientIp: ex.clientIp })).user, accessToken: tokens.accessToken };
}
