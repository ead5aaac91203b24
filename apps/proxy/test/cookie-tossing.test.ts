import { createSvcClient } from '@svc/sdk';
import { ADAPTERS, CookieJar, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type RunningProxy, type TestProject, json } from './helpers';

// A sibling site (evil.example.com) can plant cookies for the parent domain, or for a longer path,
// that the browser then sends to app.example.com beside (and before) the real ones. Using the
// first one would sign the browser into the planter's account. Two of one auth cookie mean no
// session, and the proxy expires every copy it can name.
const ORIGIN = 'https://app.example.com';

/** Every Set-Cookie line as { name, value, attributes }, duplicates kept. */
function setCookieLines(res: Response): Array<{ name: string; value: string; attributes: Record<string, string | true> }> {
  return res.headers.getSetCookie().map((line) => {
    const [pair, ...rest] = line.split(';').map((part) => part.trim());
    const attributes: Record<string, string | true> = {};
    for (const attribute of rest) {
      const eq = attribute.indexOf('=');
      if (eq === -1) attributes[attribute.toLowerCase()] = true;
      else attributes[attribute.slice(0, eq).toLowerCase()] = attribute.slice(eq + 1);
    }
    const at = pair.indexOf('=');
    return { name: pair.slice(0, at), value: pair.slice(at + 1), attributes };
  });
}

/** The (path, domain) pairs a response expires `name` at. */
function expiredAt(res: Response, name: string): string[] {
  return setCookieLines(res)
    .filter((line) => line.name === name && line.attributes['max-age'] === '0')
    .map((line) => `${line.attributes.path} ${line.attributes.domain ?? '(host)'}`)
    .sort();
}

describe.each(ADAPTERS)('duplicate auth cookies (cookie tossing) (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;
  let proxy: RunningProxy;
  let victim: CookieJar;
  let attacker: CookieJar;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
    const svc = createSvcClient({ apiKey: project.live, baseUrl: api.url });
    proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, publicOrigin: ORIGIN, guarded: { options: { apiKey: project.live, svc }, reached: () => {} } });
    const signUp = async (email: string) => new CookieJar().store(await postJson(proxy, '/api/session/signup', { email, password: PASSWORD }, { Origin: ORIGIN }));
    victim = await signUp('victim@example.com');
    attacker = await signUp('attacker@example.com');
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  const at = (jar: CookieJar) => jar.values.get('svc_at')!;
  const rt = (jar: CookieJar) => jar.values.get('svc_rt')!;
  const session = (cookie: string) => fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: cookie } });

  it('GET session with the access cookie sent twice is no session, and expires every copy it can name', async () => {
    // The planted cookie comes first: the browser orders longer paths first.
    const res = await session(`svc_at=${at(attacker)}; svc_at=${at(victim)}; svc_rt=${rt(victim)}`);
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ error: 'invalid_token', message: expect.any(String) });
    const expected = [
      '/ (host)',
      '/ example.com',
      '/api (host)',
      '/api example.com',
      '/api/ (host)',
      '/api/ example.com',
      '/api/session (host)',
      '/api/session example.com',
      '/api/session/ (host)',
      '/api/session/ example.com',
      '/api/session/session (host)',
      '/api/session/session example.com',
    ];
    expect(expiredAt(res, 'svc_at')).toEqual(expected);
    expect(expiredAt(res, 'svc_rt')).toEqual(expected);
  });

  it('a duplicated refresh cookie is no session either, even beside a valid access cookie', async () => {
    const res = await session(`svc_at=${at(victim)}; svc_rt=${rt(attacker)}; svc_rt=${rt(victim)}`);
    expect(res.status).toBe(401);
    expect(expiredAt(res, 'svc_rt')).toContain('/ (host)');
    // The same cookies without the planted one still work: nothing was rotated or revoked.
    expect((await session(`svc_at=${at(victim)}; svc_rt=${rt(victim)}`)).status).toBe(200);
  });

  it('POST refresh with two refresh cookies is 401 and rotates neither', async () => {
    proxy.upstream.splice(0);
    const res = await postJson(proxy, '/api/session/refresh', {}, { Origin: ORIGIN, Cookie: `svc_rt=${rt(attacker)}; svc_rt=${rt(victim)}` });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe('invalid_refresh_token');
    expect(expiredAt(res, 'svc_rt')).toContain('/api/session/refresh example.com');
    expect(proxy.upstream).not.toContain('POST /api/auth/refresh');
  });

  it('identical duplicates count as duplicates too', async () => {
    expect((await session(`svc_at=${at(victim)}; svc_at=${at(victim)}`)).status).toBe(401);
  });

  it('the guard refuses a duplicated access cookie', async () => {
    const res = await fetch(`${proxy.url}/api/private`, { headers: { Cookie: `svc_at=${at(attacker)}; svc_at=${at(victim)}` } });
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe('invalid_token');
    expect((await fetch(`${proxy.url}/api/private`, { headers: { Cookie: `svc_at=${at(victim)}` } })).status).toBe(200);
  });

  it('a sign-in with planted copies present expires them and sets fresh cookies last', async () => {
    const res = await postJson(proxy, '/api/session/login', { email: 'victim@example.com', password: PASSWORD }, { Origin: ORIGIN, Cookie: `svc_at=${at(attacker)}; svc_at=${at(victim)}` });
    expect(res.status).toBe(200);
    const lines = setCookieLines(res).filter((line) => line.name === 'svc_at');
    expect(lines.at(-1)).toMatchObject({ value: expect.stringMatching(/.+/), attributes: { path: '/', 'max-age': '900' } });
    expect(lines.at(-1)!.attributes.domain).toBeUndefined();
    // Every expiring line names a place other than the fresh cookie's (host-only, Path=/).
    expect(expiredAt(res, 'svc_at')).toContain('/ example.com');
    expect(expiredAt(res, 'svc_at')).not.toContain('/ (host)');
  });
});

describe.each(ADAPTERS)('__Host- cookie names (opt-in) (%s)', (adapter) => {
  let api: RealApi;
  let project: TestProject;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
  });
  afterAll(() => api.close());

  it('are used with Secure, Path=/ and no Domain when the cookies are secure', async () => {
    const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, hostPrefixCookies: true, secureCookies: true });
    try {
      const res = await postJson(proxy, '/api/session/signup', { email: 'host@example.com', password: PASSWORD });
      expect(res.status).toBe(201);
      const lines = setCookieLines(res);
      expect(lines.map((line) => line.name).sort()).toEqual(['__Host-svc_at', '__Host-svc_did', '__Host-svc_rt']);
      for (const line of lines) {
        expect(line.attributes).toMatchObject({ path: '/', secure: true, httponly: true });
        expect(line.attributes.domain).toBeUndefined();
      }
      const jar = new CookieJar().store(res);
      expect((await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: jar.header() } })).status).toBe(200);
      // The unprefixed name is not read at all: a cookie planted under it is ignored.
      expect((await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: `svc_at=${jar.values.get('__Host-svc_at')}` } })).status).toBe(401);
    } finally {
      await proxy.close();
    }
  });

  it('stay off without Secure (plain http in development) and by default', async () => {
    for (const options of [{ hostPrefixCookies: true, secureCookies: false }, { secureCookies: true }]) {
      const proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url, ...options });
      const res = await postJson(proxy, '/api/session/login', { email: 'host@example.com', password: PASSWORD });
      expect(
        setCookieLines(res)
          .map((line) => line.name)
          .sort(),
      ).toEqual(['svc_at', 'svc_did', 'svc_rt']);
      await proxy.close();
    }
  });
});
