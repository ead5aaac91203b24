import type { Request, Response } from 'express';
import { isSvcError, type SvcClient, type TokenBundle, type UserMe } from '@svc/sdk';
import type { BrandingCache } from './branding-cache';
import type { SessionCookies } from './cookies';
import type { ResolvedProxyOptions } from './options';
import type { RefreshFlights } from './refresh-flights';
import { clientIpOf } from './request-guards';

/** What every route of one proxy shares. */
export interface ProxyContext {
  svc: SvcClient;
  options: ResolvedProxyOptions;
  cookies: SessionCookies;
  flights: RefreshFlights;
  branding: BrandingCache;
}

/** A signed-in browser: the live user and an access token that works now. */
export interface CurrentSession {
  user: UserMe;
  accessToken: string;
}

/** Rotates `refreshToken` once per burst (single flight) and stores the successor in the cookies. */
export async function refreshInto(ctx: ProxyContext, req: Request, res: Response, refreshToken: string): Promise<TokenBundle> {
  const tokens = await ctx.flights.run(refreshToken, () => ctx.svc.refresh({ refreshToken }, { clientIp: clientIpOf(req) }));
  ctx.cookies.set(res, tokens);
  return tokens;
}

/**
 * The session of the request's cookies, or null when there is none. The access cookie is asked
 * about at the API's /me (which also sees logouts and bans); when it is missing, expired or
 * refused, the refresh cookie is rotated and /me asked again with the new access token.
 * Errors other than "not signed in" (a ban, the API down) are thrown.
 */
export async function currentSession(ctx: ProxyContext, req: Request, res: Response): Promise<CurrentSession | null> {
  const clientIp = clientIpOf(req);
  const accessToken = ctx.cookies.access(req);
  if (accessToken) {
    try {
      return { user: (await ctx.svc.me({ accessToken, clientIp })).user, accessToken };
    } catch (error) {
      if (!isUnauthenticated(error)) throw error;
    }
  }
  const refreshToken = ctx.cookies.refresh(req);
  if (!refreshToken) return null;
  let tokens: TokenBundle;
  try {
    tokens = await refreshInto(ctx, req, res, refreshToken);
  } catch (error) {
    if (isUnauthenticated(error)) return null;
    throw error;
  }
  return { user: (await ctx.svc.me({ accessToken: tokens.accessToken, clientIp })).user, accessToken: tokens.accessToken };
}

/** An API 401 (bad token, bad refresh token): the browser is simply not signed in. */
export function isUnauthenticated(error: unknown): boolean {
  return isSvcError(error) && error.status === 401 && error.code !== 'invalid_api_key' && error.code !== 'missing_api_key';
}
