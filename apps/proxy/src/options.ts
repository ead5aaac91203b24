import { resolveBaseUrl, type SvcClient } from '@svc/sdk';

export const ACCOUNT_PLANS = ['FREE', 'SOLO', 'PRO'] as const;
export type AccountPlan = (typeof ACCOUNT_PLANS)[number];

/** Options of {@link createSessionProxy} (the contract's "Session proxy" configuration, plus a few of ours). */
export interface SessionProxyOptions {
  /** Project API key (required). It never leaves the server. */
  apiKey: string;
  /** API origin; falls back to `SVC_API_URL`, `SVC_BASE_URL`, then `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** Where the routes live; must equal the browser client's `routePrefix`. Default `/api/session`. */
  routeBasePath?: string;
  /** Cookie names are `<prefix>_at` and `<prefix>_rt`; non-alphanumerics become `_`. Default `svc`. */
  cookiePrefix?: string;
  /** When set, no branding call is made: `poweredByService` is true exactly on FREE. */
  accountPlan?: AccountPlan;
  /** `poweredByService` when `accountPlan` is unset and the branding call fails. Default false. */
  brandingFallbackPoweredBy?: boolean;
  /**
   * The origin browsers use to reach this app (e.g. `https://app.example.com`). POSTs whose
   * `Origin` differs are refused. Default: derived from each request (protocol + Host, which
   * honour Express's `trust proxy`).
   */
  publicOrigin?: string;
  /** `Secure` on the cookies. Default: `NODE_ENV === 'production'` (DESIGN §14). */
  secureCookies?: boolean;
  /** A ready SDK client (tests, custom fetch); built from apiKey/baseUrl otherwise. */
  svc?: SvcClient;
  /** Told about failures the browser only sees as a generic error (misconfiguration, API down). */
  onError?: (error: unknown) => void;
}

/** Options with every default applied. */
export interface ResolvedProxyOptions {
  apiKey: string;
  baseUrl: string;
  routeBasePath: string;
  cookieNames: { access: string; refresh: string };
  accountPlan: AccountPlan | null;
  brandingFallbackPoweredBy: boolean;
  publicOrigin: string | null;
  secureCookies: boolean;
  onError: (error: unknown) => void;
}

export const DEFAULT_ROUTE_BASE_PATH = '/api/session';
export const DEFAULT_COOKIE_PREFIX = 'svc';

/** The contract's sanitising rule: every character outside [A-Za-z0-9] becomes `_`. */
export function sanitizeCookiePrefix(prefix: string): string {
  return prefix.replace(/[^A-Za-z0-9]/g, '_');
}

/** Names of the access and refresh cookies for a prefix. */
export function cookieNamesOf(prefix: string = DEFAULT_COOKIE_PREFIX): { access: string; refresh: string } {
  const clean = sanitizeCookiePrefix(prefix || DEFAULT_COOKIE_PREFIX);
  return { access: `${clean}_at`, refresh: `${clean}_rt` };
}

/** `/api/session/` and `api/session` both become `/api/session`; `/` stays `/`. */
export function normalizeBasePath(path: string = DEFAULT_ROUTE_BASE_PATH): string {
  const trimmed = `/${path.trim().replace(/^\/+|\/+$/g, '')}`;
  return trimmed;
}

export function resolveProxyOptions(options: SessionProxyOptions): ResolvedProxyOptions {
  if (!options.apiKey) throw new TypeError('createSessionProxy: apiKey is required (the project API key, svc_live_... or svc_sbx_...).');
  if (options.accountPlan !== undefined && !ACCOUNT_PLANS.includes(options.accountPlan)) {
    throw new TypeError(`createSessionProxy: accountPlan must be one of ${ACCOUNT_PLANS.join(', ')}.`);
  }
  return {
    apiKey: options.apiKey,
    baseUrl: options.svc?.baseUrl ?? resolveBaseUrl(options.baseUrl),
    routeBasePath: normalizeBasePath(options.routeBasePath),
    cookieNames: cookieNamesOf(options.cookiePrefix),
    accountPlan: options.accountPlan ?? null,
    brandingFallbackPoweredBy: options.brandingFallbackPoweredBy ?? false,
    publicOrigin: options.publicOrigin ? new URL(options.publicOrigin).origin : null,
    secureCookies: options.secureCookies ?? process.env.NODE_ENV === 'production',
    onError: options.onError ?? (() => {}),
  };
}
