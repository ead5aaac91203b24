import { isSvcError, type SvcClient, type UserMe } from '@svc/sdk';
import { readRequestCookies } from './request-cookies';
import { sessionCookieNames, usesHostPrefix } from './options';

/** Options of the request guard (Express `requireUser`, web `createUserGuard`). */
export interface RequireUserOptions {
  /** Project API key (required). */
  apiKey: string;
  /** API origin; same fallbacks as the proxy. */
  baseUrl?: string;
  /** The proxy's cookie prefix, to accept its access cookie when no Authorization header is sent. */
  cookiePrefix?: string;
  /** As the proxy's: with Secure cookies, the access cookie is `__Host-<prefix>_at`. */
  hostPrefixCookies?: boolean;
  /** As the proxy's (default `NODE_ENV === 'production'`); only decides the `__Host-` name. */
  secureCookies?: boolean;
  /** A ready SDK client (tests, custom transport). */
  svc?: SvcClient;
}

/** A refused request: the status and the contract's error envelope. */
interface GuardRefusal {
  status: number;
  error: string;
  message: string;
}

type GuardOutcome = { user: UserMe } | { refusal: GuardRefusal };

/** The guard's rule, free of any framework. */
export interface GuardCore {
  /** Checks the request's token at the API's /me. Throws only what is not an API answer. */
  check(authorization: string | undefined, cookieHeader: string | undefined, clientIp: string | undefined): Promise<GuardOutcome>;
}

const BEARER = /^Bearer +(\S+) *$/i;

/** The headers the guard hands to what it protects (any such header the client sent is dropped first). */
export function userHeaders(user: UserMe): Array<[string, string]> {
  return [
    ['x-svc-user-id', user.id],
    ['x-svc-user-email', user.email],
    ['x-svc-user-role', user.role],
  ];
}

/**
 * The request guard (contract "Request-guard helper"). Takes the access token from
 * `Authorization: Bearer`, or else from the proxy's access cookie (two copies of it count as
 * none), and asks the API's /me, which sees logouts and bans at once. A missing or refused token
 * is 401; a banned user 403 user_banned; an unreachable API (or a refused key) 502. It does not
 * refresh: a browser whose access cookie expired calls the proxy's GET session, which rotates the
 * cookies, and retries.
 */
export function createGuardCore(options: RequireUserOptions, defaultClient: (apiKey: string, baseUrl: string | undefined) => SvcClient): GuardCore {
  const svc = options.svc ?? defaultClient(options.apiKey, options.baseUrl);
  const names = sessionCookieNames(options.cookiePrefix, usesHostPrefix(options));
  return {
    async check(authorization, cookieHeader, clientIp) {
      const token = authorization !== undefined ? BEARER.exec(authorization)?.[1] : readRequestCookies(cookieHeader, names).access;
      if (!token) return { refusal: { status: 401, error: 'invalid_token', message: 'An access token is required (Authorization: Bearer <token>).' } };
      try {
        return { user: (await svc.me({ accessToken: token, clientIp })).user };
      } catch (error) {
        if (!isSvcError(error)) throw error;
        if (error.code === 'user_banned') return { refusal: { status: 403, error: error.code, message: error.message } };
        if (error.status === 401 && error.code !== 'invalid_api_key' && error.code !== 'missing_api_key') {
          return { refusal: { status: 401, error: error.code, message: error.message } };
        }
        return { refusal: { status: 502, error: 'upstream_unavailable', message: 'The user could not be checked; try again shortly.' } };
      }
    },
  };
}
