// `@svc/proxy/web`: the session proxy and the request guard as web-standard handlers
// (`Request` in, `Response` out) for Next.js, Hono, Bun, Deno and edge runtimes. Only Web APIs
// are used here and in everything this imports (a test walks the imports).
export { createSessionHandler, type SessionHandler, type SessionHandlerOptions } from './web/session-handler';
export { createUserGuard, type GuardedHandler, type GuardResult, type UserGuard, type UserGuardOptions } from './web/user-guard';
export type { ClientIpReader, WebCallContext } from './web/web-request';
export type { RequireUserOptions } from './core/guard';
export type { UserMe } from '@svc/sdk';
export { cookieNamesOf, sanitizeCookiePrefix, ACCOUNT_PLANS, DEFAULT_ROUTE_BASE_PATH, type AccountPlan, type SessionProxyOptions } from './core/options';
export { REFRESH_COOKIE_MAX_AGE_SECONDS, DEVICE_COOKIE_MAX_AGE_SECONDS } from './core/cookies';
export { BRANDING_TTL_MS } from './core/branding-cache';
export { REFRESH_MEMO_MS } from './core/refresh-flights';
