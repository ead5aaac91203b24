import { createSvcClient } from '@svc/sdk';
import { REFRESH_COOKIE_MAX_AGE_SECONDS } from '../src';
import { SESSION_ADAPTERS, CookieJar, PASSWORD, postJson, setCookiesOf, startProxy, startRealApi, type RealApi, type RunningProxy, type TestProject, json } from './helpers';

// The proxy's session routes against the real API, over real HTTP, reading raw Set-Cookie lines.
describe.each(SESSION_ADAPTERS)('session routes (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;
  let proxy: RunningProxy;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
    proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('signup sets both cookies with every attribute, and no token in the body', async () => {
    const res = await postJson(proxy, '/api/session/signup', { email: 'ada@example.com', password: PASSWORD, meta: { team: 'core' } });
    expect(res.status).toBe(201);
    const text = await res.text();
    const { data } = JSON.parse(text);
    expect(data).toEqual({ user: expect.objectContaining({ email: 'ada@example.com', meta: { team: 'core' } }), expiresIn: 900 });
    const cookies = setCookiesOf(res);
    expect(Object.keys(cookies).sort()).toEqual(['svc_at', 'svc_did', 'svc_rt']);
    expect(cookies.svc_at.attributes).toEqual({ 'max-age': '900', path: '/', httponly: true, samesite: 'Lax' });
    expect(cookies.svc_rt.attributes).toEqual({ 'max-age': String(REFRESH_COOKIE_MAX_AGE_SECONDS), path: '/', httponly: true, samesite: 'Lax' });
    expect(REFRESH_COOKIE_MAX_AGE_SECONDS).toBe(60 * 24 * 3600);
    expect(text).not.toContain(cookies.svc_at.value);
    expect(text).not.toContain(cookies.svc_rt.value);
  });

  it('login sets cookies; GET session answers the user and poweredByService', async () => {
    const login = await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: PASSWORD });
    expect(login.status).toBe(200);
    expect((await json(login)).data).toEqual({ user: expect.objectContaining({ email: 'ada@example.com', lastLoginAt: expect.any(String) }), expiresIn: 900 });
    const jar = new CookieJar().store(login);
    const session = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } });
    expect(session.status).toBe(200);
    expect(session.headers.get('cache-control')).toBe('no-store');
    expect((await json(session)).data).toEqual({ user: expect.objectContaining({ email: 'ada@example.com', emailVerified: false }), poweredByService: true });
  });

  it('passes API errors through in the envelope and sets no cookie', async () => {
    const wrong = await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(await json(wrong)).toEqual({ error: 'invalid_credentials', message: expect.any(String) });
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const duplicate = await postJson(proxy, '/api/session/signup', { email: 'ada@example.com', password: PASSWORD });
    expect(duplicate.status).toBe(409);
    const invalid = await postJson(proxy, '/api/session/signup', { email: 'nope', password: 'short' });
    expect((await json(invalid)).error).toBe('validation_error');
  });

  it('refresh rotates through the refresh cookie and answers only expiresIn', async () => {
    const jar = new CookieJar().store(await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: PASSWORD }));
    const before = new Map(jar.values);
    const res = await postJson(proxy, '/api/session/refresh', {}, { Cookie: jar.header() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ data: { expiresIn: 900 } });
    jar.store(res);
    expect(jar.values.get('svc_rt')).not.toBe(before.get('svc_rt'));
    expect(jar.values.get('svc_at')).not.toBe(before.get('svc_at'));
    expect(setCookiesOf(res).svc_rt.attributes['max-age']).toBe(String(REFRESH_COOKIE_MAX_AGE_SECONDS));
    // The new cookies work.
    expect((await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } })).status).toBe(200);
  });

  it('refresh without a usable token is 401 and clears the cookies', async () => {
    const none = await postJson(proxy, '/api/session/refresh', {});
    expect(none.status).toBe(401);
    const bogus = await postJson(proxy, '/api/session/refresh', {}, { Cookie: 'svc_rt=not-a-token' });
    expect(bogus.status).toBe(401);
    expect((await json(bogus)).error).toBe('invalid_refresh_token');
    expect(setCookiesOf(bogus).svc_rt.attributes['max-age']).toBe('0');
  });

  it('logout clears both cookies and revokes the session at the API', async () => {
    const jar = new CookieJar().store(await postJson(proxy, '/api/session/login', { email: 'ada@example.com', password: PASSWORD }));
    const refreshToken = jar.values.get('svc_rt')!;
    const res = await postJson(proxy, '/api/session/logout', {}, { Cookie: jar.header() });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ data: { success: true } });
    const cleared = setCookiesOf(res);
    for (const name of ['svc_at', 'svc_rt']) {
      expect(cleared[name]).toEqual({ name, value: '', attributes: { 'max-age': '0', path: '/', httponly: true, samesite: 'Lax' } });
    }
    const svc = createSvcClient({ apiKey: project.live, baseUrl: api.url });
    await expect(svc.refresh({ refreshToken })).rejects.toMatchObject({ code: 'invalid_refresh_token' });
    // Signing out without a session still succeeds (and still clears).
    expect((await postJson(proxy, '/api/session/logout', {})).status).toBe(200);
  });

  it('GET session without a session is 401 invalid_token and clears the cookies', async () => {
    const res = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: 'svc_at=expired; svc_rt=unknown' } });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe('invalid_token');
    expect(setCookiesOf(res).svc_at.attributes['max-age']).toBe('0');
    expect((await fetch(`${proxy.url}/api/session/session`)).status).toBe(401);
  });

  it('a banned user is told so and loses the cookies', async () => {
    const jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'mallory@example.com', password: PASSWORD }));
    const { user } = (await json(await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } }))).data;
    const ban = await fetch(`${api.url}/admin/projects/${project.id}/environments/production/users/${user.id}/ban`, {
      method: 'POST',
      headers: { Authorization: 'Bearer sdk-test-admin-token-0123456789abcdefghijk' },
    });
    expect(ban.status).toBe(200);
    const res = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toBe('user_banned');
    expect(setCookiesOf(res).svc_rt.attributes['max-age']).toBe('0');
  });
});

describe.each(SESSION_ADAPTERS)('cookie options (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
  });
  afterAll(() => api.close());

  it('adds Secure when NODE_ENV=production, and only then', async () => {
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    const production = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
    process.env.NODE_ENV = saved;
    const res = await postJson(production, '/api/session/signup', { email: 'prod@example.com', password: PASSWORD });
    for (const cookie of Object.values(setCookiesOf(res))) expect(cookie.attributes.secure).toBe(true);
    await production.close();
  });

  it('sanitises the cookie prefix and honours routeBasePath', async () => {
    const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, cookiePrefix: 'my-app.v2 é', routeBasePath: '/auth/' });
    const res = await postJson(proxy, '/auth/signup', { email: 'prefix@example.com', password: PASSWORD });
    expect(res.status).toBe(201);
    expect(Object.keys(setCookiesOf(res)).sort()).toEqual(['my_app_v2___at', 'my_app_v2___did', 'my_app_v2___rt']);
    const jar = new CookieJar().store(res);
    expect((await fetch(`${proxy.url}/auth/session`, { headers: { Cookie: jar.header() } })).status).toBe(200);
    expect((await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } })).status).toBe(404);
    await proxy.close();
  });
});
