// `@svc/proxy` (Node): the session proxy as an Express router, the request guard as Express
// middleware, and the standalone server. The web-standard forms are in `@svc/proxy/web`.
export { createSessionProxy } from './create-session-proxy';
export { requireUser, type RequireUserOptions } from './require-user';
export { cookieNamesOf, sanitizeCookiePrefix, ACCOUNT_PLANS, DEFAULT_ROUTE_BASE_PATH, type AccountPlan, type SessionProxyOptions } from './core/options';
export { REFRESH_COOKIE_MAX_AGE_SECONDS, DEVICE_COOKIE_MAX_AGE_SECONDS } from './core/cookies';
export { BRANDING_TTL_MS } from './core/branding-cache';
export { REFRESH_MEMO_MS } from './core/refresh-flights';
export { loadProxyConfig, ProxyConfigError, type ProxyServerConfig } from './config';
export { createProxyServerListener, startProxyServer, ListenError, type RunningProxyServer } from './server';
