import { resolve } from 'node:path';
import { resolveBaseUrl } from '@svc/sdk';
import { ACCOUNT_PLANS, type AccountPlan, type SessionProxyOptions } from './core/options';

/** Express's `trust proxy`: off, on, a hop count, or a list of addresses/subnets/names. */
export type TrustProxy = boolean | number | string[];

/** Configuration of the standalone proxy server. */
export interface ProxyServerConfig {
  port: number;
  /** The address to bind, or null for every interface. */
  host: string | null;
  proxy: SessionProxyOptions & { baseUrl: string };
  /** Absolute path of a folder served as static files on the same origin, or null. */
  staticDir: string | null;
  trustProxy: TrustProxy;
}

/** Every bad variable at once, one line each. */
export class ProxyConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid session proxy configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ProxyConfigError';
  }
}

type Env = Record<string, string | undefined>;

/**
 * Reads SVC_API_KEY (required), SVC_API_URL (then SVC_BASE_URL, then http://127.0.0.1:3000),
 * PROXY_PORT (3001), PROXY_HOST (every interface), SVC_ROUTE_BASE_PATH, SVC_COOKIE_PREFIX,
 * SVC_COOKIE_HOST_PREFIX, SVC_ACCOUNT_PLAN, SVC_BRANDING_FALLBACK_POWERED_BY, PROXY_STATIC_DIR,
 * PROXY_PUBLIC_ORIGIN, TRUST_PROXY and NODE_ENV. Empty values count as unset.
 */
export function loadProxyConfig(env: Env = process.env): ProxyServerConfig {
  const problems: string[] = [];
  const read = (name: string) => env[name]?.trim() || undefined;
  const apiKey = read('SVC_API_KEY');
  if (!apiKey) problems.push('SVC_API_KEY is required: the project API key (svc_live_... or svc_sbx_...) the proxy calls the API with.');
  else if (!/^svc_(live|sbx)_/.test(apiKey)) problems.push('SVC_API_KEY must start with svc_live_ (Production) or svc_sbx_ (Sandbox).');

  let baseUrl = '';
  try {
    baseUrl = resolveBaseUrl(undefined, env);
  } catch (error) {
    problems.push(`SVC_API_URL ${(error as Error).message}`);
  }
  const port = read('PROXY_PORT') ?? '3001';
  if (!/^\d+$/.test(port) || Number(port) > 65535) problems.push('PROXY_PORT must be a port number from 0 to 65535.');
  const plan = read('SVC_ACCOUNT_PLAN')?.toUpperCase();
  if (plan !== undefined && !(ACCOUNT_PLANS as readonly string[]).includes(plan)) problems.push(`SVC_ACCOUNT_PLAN must be one of ${ACCOUNT_PLANS.join(', ')}.`);
  const fallback = read('SVC_BRANDING_FALLBACK_POWERED_BY');
  if (fallback !== undefined && fallback !== 'true' && fallback !== 'false') problems.push('SVC_BRANDING_FALLBACK_POWERED_BY must be true or false.');
  const hostPrefix = read('SVC_COOKIE_HOST_PREFIX');
  if (hostPrefix !== undefined && hostPrefix !== 'true' && hostPrefix !== 'false') problems.push('SVC_COOKIE_HOST_PREFIX must be true or false.');
  const publicOrigin = read('PROXY_PUBLIC_ORIGIN');
  if (publicOrigin !== undefined && !/^https?:\/\/[^/]+\/?$/.test(publicOrigin)) problems.push('PROXY_PUBLIC_ORIGIN must be an origin like https://app.example.com.');
  if (problems.length > 0) throw new ProxyConfigError(problems);

  const staticDir = read('PROXY_STATIC_DIR');
  return {
    port: Number(port),
    host: read('PROXY_HOST') ?? null,
    proxy: {
      apiKey: apiKey!,
      baseUrl,
      routeBasePath: read('SVC_ROUTE_BASE_PATH'),
      cookiePrefix: read('SVC_COOKIE_PREFIX'),
      accountPlan: plan as AccountPlan | undefined,
      brandingFallbackPoweredBy: fallback === 'true',
      publicOrigin,
      secureCookies: env.NODE_ENV === 'production',
      hostPrefixCookies: hostPrefix === 'true',
    },
    staticDir: staticDir ? resolve(staticDir) : null,
    trustProxy: parseTrustProxy(read('TRUST_PROXY')),
  };
}

function parseTrustProxy(raw: string | undefined): TrustProxy {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
