import { cookieNamesOf, loadProxyConfig, ProxyConfigError, sanitizeCookiePrefix } from '../src';
import { parseCookies } from '../src/core/cookies';
import { normalizeBasePath } from '../src/core/options';

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
    expect(config).toMatchObject({ port: 3001, staticDir: null, trustProxy: false, proxy: { apiKey: 'svc_sbx_abc', baseUrl: 'http://127.0.0.1:3000', secureCookies: false } });
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
    });
    expect(config.port).toBe(8080);
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
});
