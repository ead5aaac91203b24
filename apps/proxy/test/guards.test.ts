import { createSvcClient } from '@svc/sdk';
import { ADAPTERS, CookieJar, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type RunningProxy, type TestProject, json } from './helpers';

describe.each(ADAPTERS)('request guards (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;
  let proxy: RunningProxy;
  let reached: Array<Record<string, unknown>>;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
    const svc = createSvcClient({ apiKey: project.live, baseUrl: api.url });
    proxy = await startProxy({
      adapter,
      apiKey: project.live,
      baseUrl: api.url,
      // The customer's own API behind the guard (requireUser, or the web guard), in the same host app.
      guarded: {
        options: { apiKey: project.live, svc },
        reached: (headers) => reached.push({ id: headers['x-svc-user-id'], email: headers['x-svc-user-email'], role: headers['x-svc-user-role'] }),
      },
    });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });
  beforeEach(() => {
    reached = [];
  });

  describe('cross-site form posts', () => {
    const form = (path: string, type: string, body: string, origin = 'https://evil.example') =>
      fetch(`${proxy.url}/api/session/${path}`, { method: 'POST', headers: { 'Content-Type': type, Origin: origin }, body });

    it('refuses a text/plain or urlencoded POST from a foreign origin to login and oidc/grant', async () => {
      for (const res of [
        await form('login', 'text/plain', '{"email":"ada@example.com","password":"correct horse battery"}'),
        await form('login', 'application/x-www-form-urlencoded', 'email=ada%40example.com&password=correct+horse+battery'),
        await form('oidc/grant', 'application/x-www-form-urlencoded', 'requestToken=x&approved=true'),
        await form('oidc/grant', 'text/plain', '{"requestToken":"x","approved":true}'),
      ]) {
        expect(res.status).toBe(403);
        expect(await json(res)).toEqual({ error: 'origin_not_allowed', message: expect.any(String) });
        expect(res.headers.getSetCookie()).toEqual([]);
      }
      expect(proxy.upstream).toEqual([]);
    });

    it('refuses a non-JSON POST even from our own origin (415), and a JSON POST from a foreign one (403)', async () => {
      const own = await form('login', 'text/plain', '{}', proxy.url);
      expect(own.status).toBe(415);
      expect((await json(own)).error).toBe('unsupported_media_type');
      const noOrigin = await fetch(`${proxy.url}/api/session/logout`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'a=b' });
      expect(noOrigin.status).toBe(415);
      const foreignJson = await form('login', 'application/json', '{}');
      expect(foreignJson.status).toBe(403);
      const crossSite = await fetch(`${proxy.url}/api/session/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Sec-Fetch-Site': 'cross-site' }, body: '{}' });
      expect(crossSite.status).toBe(403);
    });

    it('checks Origin against publicOrigin when configured', async () => {
      const behindProxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, publicOrigin: 'https://app.example.com' });
      expect((await postJson(behindProxy, '/api/session/logout', {})).status).toBe(403);
      expect((await postJson(behindProxy, '/api/session/logout', {}, { Origin: 'https://app.example.com' })).status).toBe(200);
      await behindProxy.close();
    });

    it('answers malformed and oversized JSON like the API', async () => {
      const broken = await fetch(`${proxy.url}/api/session/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"email":' });
      expect(broken.status).toBe(400);
      // After the host's express.json() the host's parser meets the bad JSON first, so the
      // host's error handler answers (as for its other routes); the proxy is never reached.
      if (adapter === 'express after express.json()') expect(proxy.upstream).toEqual([]);
      else expect((await json(broken)).error).toBe('validation_error');
      for (const body of ['"a string"', '42', ' ']) {
        const notAnObject = await fetch(`${proxy.url}/api/session/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
        expect([body, notAnObject.status]).toEqual([body, 400]);
      }
      const big = await postJson(proxy, '/api/session/signup', { email: 'big@example.com', password: 'x'.repeat(70_000) });
      expect(big.status).toBe(413);
    });
  });

  it('answers 404 for every other GET (and other methods) under the base path only', async () => {
    for (const [method, path] of [
      ['GET', 'login'],
      ['GET', 'refresh'],
      ['GET', 'nope'],
      ['GET', 'session/extra'],
      ['PUT', 'session'],
      ['DELETE', 'logout'],
    ]) {
      const res = await fetch(`${proxy.url}/api/session/${path}`, { method, headers: { Origin: proxy.url } });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      expect(await json(res)).toEqual({ error: 'not_found', message: expect.any(String) });
    }
    // Outside the base path the host app decides (here: Express's own 404 page).
    expect((await fetch(`${proxy.url}/elsewhere`)).headers.get('content-type')).toContain('text/html');
  });

  describe('requireUser', () => {
    it('a spoofed x-svc-user-id never reaches the guarded handler', async () => {
      const spoof = { 'X-Svc-User-Id': 'admin', 'X-Svc-User-Email': 'root@example.com', 'X-Svc-User-Role': 'admin' };
      const anonymous = await fetch(`${proxy.url}/api/private`, { headers: spoof });
      expect(anonymous.status).toBe(401);
      expect((await json(anonymous)).error).toBe('invalid_token');
      const forged = await fetch(`${proxy.url}/api/private`, { headers: { ...spoof, Authorization: 'Bearer forged.token.here' } });
      expect(forged.status).toBe(401);
      expect(reached).toEqual([]);

      const jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'guarded@example.com', password: PASSWORD }));
      const { user } = (await json(await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } }))).data;
      const withBearer = await fetch(`${proxy.url}/api/private`, { headers: { ...spoof, Authorization: `Bearer ${jar.values.get('svc_at')}` } });
      expect(withBearer.status).toBe(200);
      expect(reached).toEqual([{ id: user.id, email: 'guarded@example.com', role: user.role }]);
    });

    it('accepts the proxy access cookie when no Authorization header is sent', async () => {
      const jar = new CookieJar().store(await postJson(proxy, '/api/session/login', { email: 'guarded@example.com', password: PASSWORD }));
      const res = await fetch(`${proxy.url}/api/private`, { headers: { Cookie: jar.header(), 'x-svc-user-id': 'admin' } });
      expect(res.status).toBe(200);
      expect(reached[0].email).toBe('guarded@example.com');
      expect(reached[0].id).not.toBe('admin');
      // Logged out: the same access token is refused at once (/me checks the session).
      await postJson(proxy, '/api/session/logout', {}, { Cookie: jar.header() });
      expect((await fetch(`${proxy.url}/api/private`, { headers: { Cookie: jar.header() } })).status).toBe(401);
    });
  });
});
