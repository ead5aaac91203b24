import type { SvcClient, UserCallOptions, UserMe } from '@svc/sdk';
import { BODY_LIMIT_BYTES, isJsonMediaType } from './body';
import { BrandingCache } from './branding-cache';
import { isForeignPost } from './checks';
import { SessionCookies } from './cookies';
import { answerError } from './errors';
import { Exchange, type ProxyAnswer, type ProxyRequest } from './exchange';
import { resolveProxyOptions, type ResolvedProxyOptions, type SessionProxyOptions } from './options';
import { RefreshFlights } from './refresh-flights';
import { accountRoutes } from './routes/account-routes';
import { selfServiceRoutes } from './routes/self-service-routes';
import { mailRoutes } from './routes/mail-routes';
import { federationRoutes } from './routes/federation-routes';
import type { ProxyRoute } from './routes/route';
import { answerSession, getSessionRoute, sessionRoutes } from './routes/session-routes';
import { signInRoutes } from './routes/sign-in-routes';
import type { ProxyContext } from './session';

/** Every route under the base path, in matching order. */
const PROXY_ROUTES: readonly ProxyRoute[] = [...sessionRoutes, ...signInRoutes, ...federationRoutes, ...accountRoutes, ...selfServiceRoutes, ...mailRoutes];

/** A route matched to a path, with its decoded parameters. */
export interface RouteMatch {
  route: ProxyRoute;
  params: Record<string, string>;
}

/**
 * A `GET session` an adapter may answer from a /me call of its own: when /me answers the user
 * for `call`, the route's answer is `answer(user)`. Any other outcome (another status, a network
 * error, an answer without a user) is the route's to handle: the adapter hands the request to
 * `answer()`, which asks again (bench/README.md, round 42).
 */
interface SessionShortcut {
  /** The /me call: the access cookie and the end user's address, as the route sends them. */
  readonly call: UserCallOptions;
  answer(user: UserMe): ProxyAnswer;
}

/** The session proxy's rules, free of any framework: the adapters feed it requests and write out its answers. */
export interface ProxyCore {
  readonly options: ResolvedProxyOptions;
  readonly routes: readonly ProxyRoute[];
  /** The part of `path` under the base path (`/session`), or null when the path is not the proxy's. */
  subPath(path: string): string | null;
  /** The route for a method and a path under the base path; HEAD is GET. Null: 404. */
  match(method: string, subPath: string): RouteMatch | null;
  /**
   * Answers one request: POSTs must be JSON (415) from the proxy's own origin (403
   * origin_not_allowed), then the route runs, or 404 when there is none. Never throws.
   */
  answer(request: ProxyRequest, match: RouteMatch | null): Promise<ProxyAnswer>;
  /**
   * The shortcut for `match` when it is GET session (not HEAD) from a browser with one access
   * cookie, and whether the badge shows is known without a call; null otherwise. When /me
   * answers the user the route sets no cookie either: cookies change only on copies, a refused
   * token or a ban, which the shortcut leaves to the route.
   */
  sessionShortcut(request: ProxyRequest, match: RouteMatch | null): SessionShortcut | null;
}

export function createProxyCore(options: SessionProxyOptions, defaultClient: (apiKey: string, baseUrl: string | undefined) => SvcClient): ProxyCore {
  const resolved = resolveProxyOptions(options);
  const svc = options.svc ?? defaultClient(resolved.apiKey, resolved.baseUrl);
  const ctx: ProxyContext = {
    svc,
    options: resolved,
    cookies: new SessionCookies(resolved),
    flights: new RefreshFlights(),
    branding: new BrandingCache(svc, resolved),
  };
  const base = resolved.routeBasePath === '/' ? '' : resolved.routeBasePath;
  const matchers = PROXY_ROUTES.map((route) => ({ route, segments: route.path.split('/').slice(1) }));

  return {
    options: resolved,
    routes: PROXY_ROUTES,
    subPath(path) {
      if (!path.startsWith(base)) return null;
      const rest = path.slice(base.length);
      if (rest === '') return '/';
      return rest.startsWith('/') ? rest : null;
    },
    match(method, subPath) {
      const wanted = method === 'HEAD' ? 'GET' : method;
      // One trailing slash is tolerated, as by Express's default (non-strict) routing.
      const segments = (subPath.length > 1 && subPath.endsWith('/') ? subPath.slice(0, -1) : subPath).split('/').slice(1);
      for (const { route, segments: pattern } of matchers) {
        if (route.method !== wanted || pattern.length !== segments.length) continue;
        const params = matchSegments(pattern, segments);
        if (params) return { route, params };
      }
      return null;
    },
    async answer(request, match) {
      const ex = new Exchange(request, resolved.cookieNames);
      try {
        if (request.method === 'POST') {
          if (isForeignPost(request, resolved.publicOrigin)) {
            ex.fail(403, 'origin_not_allowed', 'Requests to the session proxy must come from this site.');
            return ex.answer;
          }
          if (!isJsonMediaType(request.header('content-type'))) {
            ex.fail(415, 'unsupported_media_type', 'Send the request body as JSON (Content-Type: application/json).');
            return ex.answer;
          }
          ex.body = await request.json(BODY_LIMIT_BYTES);
        }
        if (!match) ex.fail(404, 'not_found', 'No such session route.');
        else {
          ex.params = match.params;
          await match.route.handle(ctx, ex);
        }
      } catch (error) {
        answerError(ex, error, resolved.onError);
      }
      return ex.answer;
    },
    sessionShortcut(request, match) {
      if (match?.route !== getSessionRoute || request.method !== 'GET') return null;
      const poweredByService = ctx.branding.known();
      if (poweredByService === undefined) return null;
      const ex = new Exchange(request, resolved.cookieNames);
      const { access, duplicated } = ex.cookies;
      if (duplicated || !access) return null;
      return {
        call: { accessToken: access, clientIp: ex.clientIp },
        answer(user) {
          answerSession(ex, user, poweredByService);
          return ex.answer;
        },
      };
    },
  };
}

/** Parameters of `segments` against a route's pattern, or null. A parameter that does not decode never matches. */
function matchSegments(pattern: string[], segments: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':')) {
      if (segments[i] === '') return null;
      try {
        params[pattern[i].slice(1)] = decodeURIComponent(segments[i]);
      } catch {
        return null;
      }
    } else if (pattern[i] !== segments[i]) return null;
  }
  return params;
}
