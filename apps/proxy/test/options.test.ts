import { cookieNamesOf, loadProxyConfig, ProxyConfigError, sanitizeCookiePrefix } from '../src';
import { parseCookies, readRequestCookies } from '../src/core/request-cookies';
import { normalizeBasePath, sessionCookieNames, usesHostPrefix } from '../src/core/options';

describe('options', () => {
  it('turns every non-alphanumeric character of the cookie prefix into _', () => {
    expect(sanitizeCookiePrefix('my-app.v2')).toBe('my_app_v2');
    expect(cookieNamesOf()).toEqual({ access: 'svc_at', refresh: 'svc_rt' });
    expect(cookieNamesOf('a b;c=d')).toEqual({ access: 'a_b_c_d_at', refresh: 'a_b_c_d_rt' });
  });

  it('normalises the route base path', () => {
    expect(normalizeBasePath()).toBe('/api/session');
    expect(normalizeBasePath('auth/')).toBe('/auth');
    expect(normalizeBasePath('/')).toBe('/');
  });

  it('parses cookie headers, first occurrence winning', () => {
    expect(parseCookies('a=1; b="two"; a=3; c=%E0%A4%A; =x; junk')).toEqual({ a: '1', b: 'two', c: '%E0%A4%A' });
    expect(Object.entries(parseCookies('__proto__=p'))).toEqual([['__proto__', 'p']]);
    expect(parseCookies(undefined)).toEqual({});
  });
});

describe('loadProxyConfig (standalone server variables)', () => {
  it('requires SVC_API_KEY with a clear message', () => {
    expect(() => loadProxyConfig({})).toThrow(ProxyConfigError);
    expect(() => loadProxyConfig({})).toThrow(/SVC_API_KEY is required/);
    expect(() => loadProxyConfig({ SVC_API_KEY: 'sk_test_123' })).toThrow(/svc_live_/);
  });

  it('applies the defaults and the base URL fallbacks', () => {
    const config = loadProxyConfig({ SVC_API_KEY: 'svc_sbx_abc' });
    expect(config).toMatchObject({ port: 3001, host: null, staticDir: null, trustProxy: false, proxy: { apiKey: 'svc_sbx_abc', baseUrl: 'http://127.0.0.1:3000', secureCookies: false } });
    expect(loadProxyConfig({ SVC_API_KEY: 'svc_sbx_abc', SVC_BASE_URL: 'https://auth.example.com/' }).proxy.baseUrl).toBe('https://auth.example.com');
    expect(loadProxyConfig({ SVC_API_KEY: 'svc_sbx_abc', SVC_API_URL: 'http://api:3000', SVC_BASE_URL: 'https://x' }).proxy.baseUrl).toBe('http://api:3000');
  });

  it('reads every variable', () => {
    const config = loadProxyConfig({
      SVC_API_KEY: 'svc_live_abc',
      PROXY_PORT: '8080',
      SVC_ROUTE_BASE_PATH: '/auth',
      SVC_COOKIE_PREFIX: 'acme',
      SVC_ACCOUNT_PLAN: 'pro',
      SVC_BRANDING_FALLBACK_POWERED_BY: 'true',
      PROXY_STATIC_DIR: 'apps/demo',
      PROXY_PUBLIC_ORIGIN: 'https://app.example.com',
      TRUST_PROXY: '1',
      NODE_ENV: 'production',
      PROXY_HOST: '127.0.0.1',
      SVC_COOKIE_HOST_PREFIX: 'true',
    });
    expect(config.port).toBe(8080);
    expect(config.host).toBe('127.0.0.1');
    expect(config.proxy.hostPrefixCookies).toBe(true);
    expect(config.staticDir).toMatch(/\/apps\/demo$/);
    expect(config.trustProxy).toBe(1);
    expect(config.proxy).toMatchObject({
      routeBasePath: '/auth',
      cookiePrefix: 'acme',
      accountPlan: 'PRO',
      brandingFallbackPoweredBy: true,
      publicOrigin: 'https://app.example.com',
      secureCookies: true,
    });
  });

  it('lists every bad value at once', () => {
    try {
      loadProxyConfig({ SVC_API_KEY: 'svc_sbx_a', PROXY_PORT: 'eighty', SVC_ACCOUNT_PLAN: 'GOLD', SVC_BRANDING_FALLBACK_POWERED_BY: 'yes', SVC_API_URL: 'ftp://x' });
      throw new Error('expected a ProxyConfigError');
    } catch (error) {
      expect((error as ProxyConfigError).problems).toHaveLength(4);
    }
  });

  it('accepts only true or false for SVC_COOKIE_HOST_PREFIX (off by default)', () => {
    expect(loadProxyConfig({ SVC_API_KEY: 'svc_sbx_a' }).proxy.hostPrefixCookies).toBe(false);
    expect(() => loadProxyConfig({ SVC_API_KEY: 'svc_sbx_a', SVC_COOKIE_HOST_PREFIX: 'yes' })).toThrow(/SVC_COOKIE_HOST_PREFIX must be true or false/);
  });
});

describe('cookie names', () => {
  it('carry __Host- only when asked for and Secure', () => {
    expect(sessionCookieNames('svc', true)).toEqual({ access: '__Host-svc_at', refresh: '__Host-svc_rt', device: '__Host-svc_did' });
    expect(cookieNamesOf('svc', true)).toEqual({ access: '__Host-svc_at', refresh: '__Host-svc_rt' });
    expect(usesHostPrefix({ hostPrefixCookies: true, secureCookies: true })).toBe(true);
    expect(usesHostPrefix({ hostPrefixCookies: true, secureCookies: false })).toBe(false);
    expect(usesHostPrefix({ secureCookies: true })).toBe(false);
  });

  it('count copies of the auth cookies: two of one are no session', () => {
    const names = sessionCookieNames();
    expect(readRequestCookies('svc_at=a; svc_rt=r; svc_did=AAAAAAAAAAAAAAAAAAAAAA', names)).toEqual({ duplicated: false, access: 'a', refresh: 'r', device: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(readRequestCookies('svc_at=a; svc_at=b; svc_rt=r', names)).toEqual({ duplicated: true, device: undefined });
    expect(readRequestCookies('svc_rt=r; x=1; svc_rt=r', names).duplicated).toBe(true);
    expect(readRequestCookies('svc_did=AAAAAAAAAAAAAAAAAAAAAA; svc_did=BBBBBBBBBBBBBBBBBBBBBB', names).device).toBeUndefined();
    expect(readRequestCookies('svc_at=; svc_did=short', names)).toEqual({ duplicated: false, access: undefined, device: undefined });
  });
});
