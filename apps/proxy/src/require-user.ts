import type { Request, RequestHandler } from 'express';
import { isSvcError, type SvcClient, type UserMe } from '@svc/sdk';
import { parseCookies } from './cookies';
import { sendError } from './errors';
import { cookieNamesOf } from './options';
import { clientIpOf, stripSvcHeaders } from './request-guards';
import { proxySvcClient } from './svc-client';

export interface RequireUserOptions {
  /** Project API key (required). */
  apiKey: string;
  /** API origin; same fallbacks as the proxy. */
  baseUrl?: string;
  /** The proxy's cookie prefix, to accept its access cookie when no Authorization header is sent. */
  cookiePrefix?: string;
  /** A ready SDK client (tests, custom fetch). */
  svc?: SvcClient;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The request guard (contract "Request-guard helper"). Takes the access token from
 * `Authorization: Bearer`, or else from the proxy's access cookie, and asks the API's /me
 * (which sees logouts and bans at once). On success the request carries `x-svc-user-id`,
 * `x-svc-user-email` and `x-svc-user-role` (any such header the client sent is deleted first,
 * success or not) and `res.locals.svcUser` holds the user. A missing or refused token is
 * `401 { error, message }`; a banned user `403 user_banned`; an unreachable API `502`.
 *
 * It does not refresh: a browser whose access cookie expired calls the proxy's GET session,
 * which rotates the cookies, and retries.
 */
export function requireUser(options: RequireUserOptions): RequestHandler {
  const svc = options.svc ?? proxySvcClient(options.apiKey, options.baseUrl);
  const accessCookie = cookieNamesOf(options.cookiePrefix).access;
  return async (req, res, next) => {
    stripSvcHeaders(req);
    const token = tokenOf(req, accessCookie);
    if (!token) return sendError(res, 401, 'invalid_token', 'An access token is required (Authorization: Bearer <token>).');
    let user: UserMe;
    try {
      ({ user } = await svc.me({ accessToken: token, clientIp: clientIpOf(req) }));
    } catch (error) {
      if (!isSvcError(error)) return next(error);
      if (error.code === 'user_banned') return sendError(res, 403, error.code, error.message);
      if (error.status === 401 && error.code !== 'invalid_api_key' && error.code !== 'missing_api_key') return sendError(res, 401, error.code, error.message);
      return sendError(res, 502, 'upstream_unavailable', 'The user could not be checked; try again shortly.');
    }
    req.headers['x-svc-user-id'] = user.id;
    req.headers['x-svc-user-email'] = user.email;
    req.headers['x-svc-user-role'] = user.role;
    res.locals.svcUser = user;
    next();
  };
}

function tokenOf(req: Request, accessCookie: string): string | undefined {
  const header = req.get('authorization');
  if (header !== undefined) return BEARER.exec(header)?.[1];
  return parseCookies(req.headers.cookie)[accessCookie] || undefined;
}
