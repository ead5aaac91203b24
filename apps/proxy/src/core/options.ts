import { resolveBaseUrl, type SvcClient } from '@svc/sdk';

export const ACCOUNT_PLANS = ['FREE', 'SOLO', 'PRO'] as const;
export type AccountPlan = (typeof ACCOUNT_PLANS)[number];

/** Options of the session proxy (the contract's "Session proxy" configuration, plus a few of ours). */
export interface SessionProxyOptions {
  /** Project API key (required). It never leaves the server. */
  apiKey: string;
  /** API origin; falls back to `SVC_API_URL`, `SVC_BASE_URL`, then `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Where the routes live; must equal the browser client's `routePrefix`. Default `/api/session`. */
  routeBasePath?: string;
  /** Cookie names are `<prefix>_at`, `<prefix>_rt` and `<prefix>_did`; non-alphanumerics become `_`. Default `svc`. */
  cookiePrefix?: string;
  /** When set, no branding call is made: `poweredByService` is true exactly on FREE. */
  accountPlan?: AccountPlan;
  /** `poweredByService` when `accountPlan` is unset and the branding call fails. Default false. */
  brandingFallbackPoweredBy?: boolean;
  /**
   * The origin browsers use to reach this app (e.g. `https://app.example.com`). POSTs whose
   * `Origin` differs are refused. Default: derived from each request (protocol + Host; in
   * Express these honour `trust proxy`).
   */
  publicOrigin?: string;
  /** `Secure` on the cookies. Default: `NODE_ENV === 'production'`. */
  secureCookies?: boolean;
  /**
   * Names the cookies `__Host-<prefix>_at` (and so on) whenever they are Secure, so that no
   * other site, not even a sibling subdomain, can plant one (docs/security.md). Default false:
   * the contract's names.
   */
  hostPrefixCookies?: boolean;
  /** A ready SDK client (tests, custom transport); built from apiKey/baseUrl otherwise. */
  svc?: SvcClient;
  /** Told about failures the browser only sees as a generic error (misconfiguration, API down). */
  onError?: (error: unknown) => void;
}

/** The proxy's cookie names. */
export interface CookieNames {
  access: string;
  refresh: string;
  /** The device cookie: a random id per browser, passed to the API on sign-in calls. */
  device: string;
}

/** Options with every default applied. */
export interface ResolvedProxyOptions {
  apiKey: string;
  baseUrl: string;
  routeBasePath: string;
  cookieNames: CookieNames;
  accountPlan: AccountPlan | null;
  brandingFallbackPoweredBy: boolean;
  publicOrigin: string | null;
  secureCookies: boolean;
  /** True when the names carry `__Host-` (asked for, and the cookies are Secure). */
  hostPrefixed: boolean;
  onError: (error: unknown) => void;
}

export const DEFAULT_ROUTE_BASE_PATH = '/api/session';
const DEFAULT_COOKIE_PREFIX = 'svc';
const HOST_PREFIX = '__Host-';

/** The contract's sanitising rule: every character outside [A-Za-z0-9] becomes `_`. */
export function sanitizeCookiePrefix(prefix: string): string {
  return prefix.replace(/[^A-Za-z0-9]/g, '_');
}

/** Names of the access and refresh cookies for a prefix (with `__Host-` in front when `hostPrefixed`). */
export function cookieNamesOf(prefix: string = DEFAULT_COOKIE_PREFIX, hostPrefixed = false): { access: string; refresh: string } {
  const { access, refresh } = sessionCookieNames(prefix, hostPrefixed);
  return { access, refresh };
}

/** All three cookie names of the proxy. */
export function sessionCookieNames(prefix: string = DEFAULT_COOKIE_PREFIX, hostPrefixed = false): CookieNames {
  const clean = `${hostPrefixed ? HOST_PREFIX : ''}${sanitizeCookiePrefix(prefix || DEFAULT_COOKIE_PREFIX)}`;
  return { access: `${clean}_at`, refresh: `${clean}_rt`, device: `${clean}_did` };
}

/** `/api/session/` and `api/session` both become `/api/session`; `/` stays `/`. */
export function normalizeBasePath(path: string = DEFAULT_ROUTE_BASE_PATH): string {
  return `/${path.trim().replace(/^\/+|\/+$/g, '')}`;
}

/** `NODE_ENV === 'production'`, in runtimes that have a `process` (edge runtimes may not). */
function isProduction(): boolean {
  return typeof process !== 'undefined' && process.env?.NODE_ENV === 'production';
}

/** `__Host-` only works on Secure cookies: browsers drop such a cookie set without it. */
export function usesHostPrefix(options: { hostPrefixCookies?: boolean; secureCookies?: boolean }): boolean {
  return options.hostPrefixCookies === true && (options.secureCookies ?? isProduction());
}

export function resolveProxyOptions(options: SessionProxyOptions): ResolvedProxyOptions {
  if (!options.apiKey) throw new TypeError('createSessionProxy: apiKey is required (the project API key, svc_live_... or svc_sbx_...).');
  if (options.accountPlan !== undefined && !ACCOUNT_PLANS.includes(options.accountPlan)) {
    throw new TypeError(`createSessionProxy: accountPlan must be one of ${ACCOUNT_PLANS.join(', ')}.`);
  }
  const secureCookies = options.secureCookies ?? isProduction();
  const hostPrefixed = usesHostPrefix({ hostPrefixCookies: options.hostPrefixCookies, secureCookies });
  return {
    apiKey: options.apiKey,
    baseUrl: options.svc?.baseUrl ?? resolveBaseUrl(options.baseUrl),
    routeBasePath: normalizeBasePath(options.routeBasePath),
    cookieNames: sessionCookieNames(options.cookiePrefix, hostPrefixed),
    accountPlan: options.accountPlan ?? null,
    brandingFallbackPoweredBy: options.brandingFallbackPoweredBy ?? false,
    publicOrigin: options.publicOrigin ? new URL(options.publicOrigin).origin : null,
    secureCookies,
    hostPrefixed,
    onError: options.onError ?? (() => {}),
  };
}
