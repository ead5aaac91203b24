import { BrandingCache, BRANDING_TTL_MS } from '../src/core/branding-cache';
import { SESSION_ADAPTERS, CookieJar, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type TestProject, json } from './helpers';

describe.each(SESSION_ADAPTERS)('poweredByService in GET session (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;
  let jar: CookieJar;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject({ name: 'Branding', plan: 'PRO' });
  });
  afterAll(() => api.close());

  const session = async (proxy: { url: string }) => (await json(await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } }))).data;

  it('asks the API once and serves the cached answer afterwards', async () => {
    const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
    jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'brand@example.com', password: PASSWORD }));
    for (let i = 0; i < 3; i++) expect((await session(proxy)).poweredByService).toBe(false);
    expect(proxy.upstream.filter((call) => call === 'GET /api/auth/sdk/branding')).toHaveLength(1);
    await proxy.close();
  });

  it('with accountPlan makes no branding call: FREE shows the badge, SOLO and PRO do not', async () => {
    for (const [accountPlan, expected] of [
      ['FREE', true],
      ['SOLO', false],
      ['PRO', false],
    ] as const) {
      const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, accountPlan });
      expect((await session(proxy)).poweredByService).toBe(expected);
      expect(proxy.upstream).not.toContain('GET /api/auth/sdk/branding');
      await proxy.close();
    }
  });
});

describe('BrandingCache', () => {
  const options = { apiKey: 'svc_sbx_k', accountPlan: null, brandingFallbackPoweredBy: false, onError: () => {} };

  it('expires after five minutes', async () => {
    let now = 0;
    let calls = 0;
    const cache = new BrandingCache({ branding: async () => ({ poweredByService: ++calls === 1 }) }, options, () => now);
    expect(await cache.poweredByService()).toBe(true);
    now = BRANDING_TTL_MS - 1;
    expect(await cache.poweredByService()).toBe(true);
    now = BRANDING_TTL_MS + 1;
    expect(await cache.poweredByService()).toBe(false);
    expect(calls).toBe(2);
    expect(BRANDING_TTL_MS).toBe(300_000);
  });

  it('knows the answer without a call only while a settled, unexpired one is cached, or with accountPlan', async () => {
    let now = 0;
    let answer: (value: { poweredByService: boolean }) => void = () => {};
    const cache = new BrandingCache({ branding: () => new Promise((resolve) => (answer = resolve)) }, options, () => now);
    expect(cache.known()).toBeUndefined();
    const asked = cache.poweredByService();
    expect(cache.known()).toBeUndefined();
    answer({ poweredByService: true });
    await asked;
    expect(cache.known()).toBe(true);
    now = BRANDING_TTL_MS + 1;
    expect(cache.known()).toBeUndefined();
    const failing = new BrandingCache({ branding: () => Promise.reject(new Error('down')) }, { ...options, brandingFallbackPoweredBy: true });
    expect(await failing.poweredByService()).toBe(true);
    expect(failing.known()).toBeUndefined();
    expect(new BrandingCache({ branding: () => Promise.reject(new Error('unasked')) }, { ...options, accountPlan: 'FREE' }).known()).toBe(true);
    expect(new BrandingCache({ branding: () => Promise.reject(new Error('unasked')) }, { ...options, accountPlan: 'PRO' }).known()).toBe(false);
  });

  it('answers brandingFallbackPoweredBy when the call fails, and asks again next time', async () => {
    let calls = 0;
    const failing = {
      branding: async () => {
        calls++;
        throw new Error('down');
      },
    };
    expect(await new BrandingCache(failing, options).poweredByService()).toBe(false);
    const cache = new BrandingCache(failing, { ...options, brandingFallbackPoweredBy: true });
    expect(await cache.poweredByService()).toBe(true);
    expect(await cache.poweredByService()).toBe(true);
    expect(calls).toBe(3);
  });

  it.each(SESSION_ADAPTERS)('uses the fallback in a running proxy whose API is unreachable (%s)', async (adapter) => {
    const proxy = await startProxy({ adapter, apiKey: 'svc_sbx_k', baseUrl: 'http://127.0.0.1:9', brandingFallbackPoweredBy: true });
    const res = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: 'svc_at=x' } });
    // /me cannot be asked either: the proxy says so (502) rather than "signed out".
    expect(res.status).toBe(502);
    expect((await json(res)).error).toBe('upstream_unavailable');
    await proxy.close();
  });
});
