import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { ADAPTERS, json, postJson, setCookiesOf, startProxy, startRealApi, type RunningProxy } from './helpers';

// What the proxy sends upstream for OAuth exchange (POST /api/auth/oauth/token) and the OIDC grant (POST /api/auth/oidc/grant), checked
// against a stub API that answers in the contract's shapes and records each request (our HTTP
// client is real). The whole flows, through real identity providers and the real API, are in
// oauth-e2e.test.ts and oidc-grant-e2e.test.ts. The last block checks the real API's answers
// that need no round trip.
interface Seen {
  path: string;
  body: Record<string, unknown>;
  clientIp: string | undefined;
  apiKey: string | undefined;
}

async function startStubApi(): Promise<{ url: string; seen: Seen[]; devices: string[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  /** `METHOD path device-id` of every call (`-` without X-Svc-Device-Id). */
  const devices: string[] = [];
  const user = { id: 'u-1', email: 'ada@example.com', role: 'user', meta: {}, createdAt: '2026-01-01T00:00:00.000Z' };
  const tokens = { accessToken: 'at-1', refreshToken: 'rt-1', expiresIn: 600 };
  const app = express().use(express.json());
  app.use((req, _res, next) => {
    seen.push({ path: `${req.method} ${req.path}`, body: req.body ?? {}, clientIp: req.get('x-svc-client-ip'), apiKey: req.get('x-api-key') });
    devices.push(`${req.method} ${req.path} ${req.get('x-svc-device-id') ?? '-'}`);
    next();
  });
  // The sign-in calls, answering tokens (a wrong password: 401).
  app.post('/api/auth/login', (req, res) => {
    if (req.body.password !== 'right') return void res.status(401).json({ error: 'invalid_credentials', message: 'Invalid email or password.' });
    res.json({ data: { user, ...tokens } });
  });
  app.post('/api/auth/signup', (_req, res) => void res.status(201).json({ data: { user, ...tokens } }));
  app.post('/api/auth/2fa/totp/verify', (_req, res) => void res.json({ data: { user, ...tokens } }));
  app.post('/api/auth/passkeys/login/verify', (_req, res) => void res.json({ data: { user, ...tokens } }));
  app.post('/api/auth/refresh', (_req, res) => void res.json({ data: tokens }));
  app.get('/api/auth/sdk/branding', (_req, res) => void res.json({ data: { poweredByService: false } }));
  app.get('/api/auth/me', (req, res) => {
    if (req.get('authorization') === 'Bearer at-1') return void res.json({ data: { user: { ...user, emailVerified: true, lastLoginAt: null } } });
    res.status(401).json({ error: 'invalid_token', message: 'Invalid access token.' });
  });
  app.post('/api/auth/oauth/token', (req, res) => {
    if (req.body.code === 'good') return void res.json({ data: { user, accessToken: 'at-1', refreshToken: 'rt-1', expiresIn: 600, provider: 'github' } });
    if (req.body.code === 'second-factor') return void res.json({ data: { twoFactorRequired: true, twoFactorToken: 'tf-1', methods: ['totp'] } });
    res.status(401).json({ error: 'invalid_token', message: 'Invalid or used exchange code.' });
  });
  app.post('/api/auth/oauth/:provider', (req, res) => {
    if (req.params.provider !== 'github') return void res.status(400).json({ error: 'validation_error', message: 'Provider not configured.' });
    res.json({ data: { provider: 'github', authorizationUrl: `https://github.com/login/oauth/authorize?client_id=c&state=${req.body.state ?? 's'}` } });
  });
  app.post('/api/auth/oidc/grant', (req, res) => void res.json({ data: { redirectUrl: `https://rp.example/cb?${req.body.approved ? 'code=c1' : 'error=access_denied'}` } }));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    devices,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.each(ADAPTERS)('oauth and oidc routes (stub upstream) (%s)', (adapter) => {
  let stub: Awaited<ReturnType<typeof startStubApi>>;
  let proxy: RunningProxy;

  beforeAll(async () => {
    stub = await startStubApi();
    proxy = await startProxy({ adapter, apiKey: 'svc_sbx_stub', baseUrl: stub.url });
  });
  afterAll(async () => {
    await proxy.close();
    await stub.close();
  });
  beforeEach(() => {
    stub.seen.splice(0);
    stub.devices.splice(0);
  });

  it('oauth/{provider} answers only the authorization URL', async () => {
    const res = await postJson(proxy, '/api/session/oauth/github', { redirectUrl: 'http://localhost:3001/', state: 'xyz', extra: 'dropped' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ data: { authorizationUrl: 'https://github.com/login/oauth/authorize?client_id=c&state=xyz' } });
    expect(stub.seen).toEqual([{ path: 'POST /api/auth/oauth/github', body: { redirectUrl: 'http://localhost:3001/', state: 'xyz' }, clientIp: '127.0.0.1', apiKey: 'svc_sbx_stub' }]);
    expect((await postJson(proxy, '/api/session/oauth/google', {})).status).toBe(400);
    expect((await postJson(proxy, '/api/session/oauth/..%2Fadmin', {})).status).toBe(400);
  });

  it('oauth/exchange sets the session cookies, or passes the second-factor challenge on', async () => {
    const res = await postJson(proxy, '/api/session/oauth/exchange', { code: 'good' });
    expect(await json(res)).toEqual({ data: { user: expect.objectContaining({ id: 'u-1' }), expiresIn: 600, provider: 'github' } });
    const cookies = setCookiesOf(res);
    expect(cookies.svc_at).toMatchObject({ value: 'at-1', attributes: { 'max-age': '600', path: '/', httponly: true, samesite: 'Lax' } });
    expect(cookies.svc_rt.value).toBe('rt-1');
    const challenge = await postJson(proxy, '/api/session/oauth/exchange', { code: 'second-factor' });
    expect(await json(challenge)).toEqual({ data: { twoFactorRequired: true, twoFactorToken: 'tf-1', methods: ['totp'] } });
    expect(challenge.headers.getSetCookie()).toEqual([]);
    expect((await postJson(proxy, '/api/session/oauth/exchange', { code: 'used' })).status).toBe(401);
  });

  it('oidc/grant approval takes the user id from the session, never from the body', async () => {
    const anonymous = await postJson(proxy, '/api/session/oidc/grant', { requestToken: 'rq', approved: true, userId: 'victim' });
    expect(anonymous.status).toBe(401);
    expect(stub.seen.some((call) => call.path === 'POST /api/auth/oidc/grant')).toBe(false);

    const res = await postJson(proxy, '/api/session/oidc/grant', { requestToken: 'rq', approved: true, scopes: ['openid', 'email'], userId: 'victim' }, { Cookie: 'svc_at=at-1' });
    expect(await json(res)).toEqual({ data: { redirectUrl: 'https://rp.example/cb?code=c1' } });
    expect(stub.seen.find((call) => call.path === 'POST /api/auth/oidc/grant')?.body).toEqual({ requestToken: 'rq', approved: true, scopes: ['openid', 'email'], userId: 'u-1' });
  });

  it('oidc/grant denial needs no session and sends no user id', async () => {
    const res = await postJson(proxy, '/api/session/oidc/grant', { requestToken: 'rq', approved: false, userId: 'victim' });
    expect(await json(res)).toEqual({ data: { redirectUrl: 'https://rp.example/cb?error=access_denied' } });
    expect(stub.seen.map((call) => call.path)).toEqual(['POST /api/auth/oidc/grant']);
    expect(stub.seen[0].body).toEqual({ requestToken: 'rq', approved: false });
  });

  describe('device id', () => {
    const signIns: Array<[string, Record<string, unknown>, string]> = [
      ['login', { email: 'ada@example.com', password: 'right' }, 'POST /api/auth/login'],
      ['signup', { email: 'ada@example.com', password: 'right' }, 'POST /api/auth/signup'],
      ['totp', { twoFactorToken: 'tf-1', code: '123456' }, 'POST /api/auth/2fa/totp/verify'],
      ['passkey/login/verify', { challengeId: 'c', email: 'ada@example.com', response: {} }, 'POST /api/auth/passkeys/login/verify'],
      ['oauth/exchange', { code: 'good' }, 'POST /api/auth/oauth/token'],
      ['refresh', { refreshToken: 'rt-0' }, 'POST /api/auth/refresh'],
    ];

    it.each(signIns)('%s: a browser without one gets a new id, sent to the API and kept in the did cookie', async (path, body, upstream) => {
      const res = await postJson(proxy, `/api/session/${path}`, body);
      expect(res.status).toBeLessThan(300);
      const did = setCookiesOf(res).svc_did;
      expect(did).toMatchObject({ value: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/), attributes: { 'max-age': String(400 * 24 * 3600), path: '/', httponly: true, samesite: 'Lax' } });
      expect(stub.devices).toContain(`${upstream} ${did.value}`);
    });

    it.each(signIns)('%s: a browser with one sends it and keeps it', async (path, body, upstream) => {
      // Another refresh token than above: a rotation of the same one is shared for 10 s, without a call.
      const sent = path === 'refresh' ? { refreshToken: 'rt-9' } : body;
      const res = await postJson(proxy, `/api/session/${path}`, sent, { Cookie: 'svc_did=AAAAAAAAAAAAAAAAAAAAAA' });
      expect(res.status).toBeLessThan(300);
      expect(setCookiesOf(res).svc_did).toBeUndefined();
      expect(stub.devices).toContain(`${upstream} AAAAAAAAAAAAAAAAAAAAAA`);
    });

    it('two tabs refreshing at once share one call, and both keep the device id it was made with', async () => {
      const answers = await Promise.all([1, 2].map(() => postJson(proxy, '/api/session/refresh', { refreshToken: 'rt-tabs' })));
      const ids = answers.map((res) => setCookiesOf(res).svc_did?.value);
      expect(stub.devices).toEqual([`POST /api/auth/refresh ${ids[0]}`]);
      expect(ids[1]).toBe(ids[0]);
    });

    it('is sent on failed attempts too, and set only when the sign-in succeeds', async () => {
      const wrong = await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: 'wrong' }, { Cookie: 'svc_did=BBBBBBBBBBBBBBBBBBBBBB' });
      expect(wrong.status).toBe(401);
      expect(stub.devices).toEqual(['POST /api/auth/login BBBBBBBBBBBBBBBBBBBBBB']);
      const fresh = await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: 'wrong' });
      expect(fresh.headers.getSetCookie()).toEqual([]);
    });

    it('is not sent where nobody signs in, and a malformed or doubled cookie is replaced', async () => {
      await postJson(proxy, '/api/session/oauth/github', {}, { Cookie: 'svc_did=AAAAAAAAAAAAAAAAAAAAAA' });
      expect(stub.devices).toEqual(['POST /api/auth/oauth/github -']);
      for (const cookie of ['svc_did=short', 'svc_did=AAAAAAAAAAAAAAAAAAAAAA; svc_did=CCCCCCCCCCCCCCCCCCCCCC']) {
        const res = await postJson(proxy, '/api/session/oauth/exchange', { code: 'good' }, { Cookie: cookie });
        expect(setCookiesOf(res).svc_did.value).toMatch(/^[A-Za-z0-9_-]{22}$/);
      }
    });
  });

  it('sends the end user address as X-Svc-Client-Ip, never a client-supplied one', async () => {
    await postJson(proxy, '/api/session/oauth/github', {}, { 'X-Svc-Client-Ip': '6.6.6.6' });
    expect(stub.seen[0].clientIp).toBe('127.0.0.1');
  });

  it('honours the host app trust proxy setting for the end user address', async () => {
    const behindLb = await startProxy({
      adapter,
      apiKey: 'svc_sbx_stub',
      baseUrl: stub.url,
      // Express: `trust proxy` is read per request, so setting it after mounting still applies.
      mount: (app) => app.set('trust proxy', 'loopback'),
      // Web: the runtime knows nothing of proxies; the host names the address it trusts.
      clientIp: adapter === 'web' ? (request) => request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim() : undefined,
    });
    await postJson(behindLb, '/api/session/oauth/github', {}, { 'X-Forwarded-For': '198.51.100.9' });
    expect(stub.seen[0].clientIp).toBe('198.51.100.9');
    await behindLb.close();
  });
});

// What the real API already answers for OAuth initiate and exchange without an identity provider round trip.
describe.each(ADAPTERS)('oauth routes against the real API (%s)', (adapter) => {
  it('initiates with a configured provider, refuses an unconfigured one and a bad exchange code', async () => {
    const api = await startRealApi();
    const project = await api.createProject({ name: 'OAuth', redirectUrls: ['http://localhost:3001/'] });
    const configured = await api.admin('PUT', `/admin/projects/${project.id}/oauth-providers/github`, { enabled: true, clientId: 'gh-client', clientSecret: 'gh-secret' });
    expect(configured.status).toBe(200);
    const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
    try {
      const res = await postJson(proxy, '/api/session/oauth/github', { redirectUrl: 'http://localhost:3001/' });
      const { data } = await json(res);
      expect(Object.keys(data)).toEqual(['authorizationUrl']);
      // In-memory deps carry core's fake identity-provider client, so the URL is its, not GitHub's.
      expect(new URL(data.authorizationUrl).protocol).toBe('https:');
      const google = await postJson(proxy, '/api/session/oauth/google', {});
      expect([google.status, (await json(google)).error]).toEqual([400, 'validation_error']);
      const exchange = await postJson(proxy, '/api/session/oauth/exchange', { code: 'not-a-code' });
      expect([exchange.status, (await json(exchange)).error]).toEqual([401, 'invalid_token']);
      expect(exchange.headers.getSetCookie()).toEqual([]);
    } finally {
      await proxy.close();
      await api.close();
    }
  }, 30_000);
});
