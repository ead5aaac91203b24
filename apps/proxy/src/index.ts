// Public surface of @svc/proxy: the session proxy router, the request guard, the standalone server.
export { createSessionProxy } from './create-session-proxy';
export { requireUser, type RequireUserOptions } from './require-user';
export { cookieNamesOf, sanitizeCookiePrefix, ACCOUNT_PLANS, DEFAULT_ROUTE_BASE_PATH, type AccountPlan, type SessionProxyOptions } from './options';
export { REFRESH_COOKIE_MAX_AGE_SECONDS } from './cookies';
export { BRANDING_TTL_MS } from './branding-cache';
export { REFRESH_MEMO_MS } from './refresh-flights';
export { loadProxyConfig, ProxyConfigError, type ProxyServerConfig } from './config';
export { createProxyServerApp, startProxyServer } from './server';
