import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callHeaders, createSvcClient, type SvcClient, type UserMe } from '@svc/sdk';
import { Agent } from 'undici';
import { createProxyServerListener } from '../src';
import type { ProxyRequest } from '../src/core/exchange';
import { createProxyCore } from '../src/core/proxy-core';
import { MeAsker } from '../src/node-me';
import { CookieJar, json, listen, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type TestProject } from './helpers';

// The standalone server answers a signed-in `GET session` from a /me call of its own
// (server.ts, node-me.ts), and hands anything else to the route. These tests hold it to the
// route's answers; the route suites also run against the standalone server (SESSION_ADAPTERS).

const USER = { id: 'u1', email: 'ada@example.com', emailVerified: true } as unknown as UserMe;

function request(method: string, cookie: string | undefined, path = '/api/session/session'): ProxyRequest {
  return {
    method,
    path,
    header: (name) => (name === 'cookie' ? cookie : undefined),
    clientIp: () => '203.0.113.7',
    origin: () => 'http://app.test',
    json: async () => ({}),
  };
}

describe("the core's GET session shortcut", () => {
  const client = (branding: () => Promise<{ poweredByService: boolean }>) => ({ baseUrl: 'http://api.test', me: async () => ({ user: USER }), branding }) as unknown as SvcClient;
  const core = (accountPlan?: 'FREE' | 'PRO', branding = async () => ({ poweredByService: true })) =>
    createProxyCore({ apiKey: 'svc_sbx_k', accountPlan, svc: client(branding) }, () => {
      throw new Error('the test gives its client');
    });
  const offered = (proxy: ReturnType<typeof core>, method: string, cookie: string | undefined, subPath = '/session') => proxy.sessionShortcut(request(method, cookie), proxy.match(method, subPath));

  it("is offered for one access cookie, asks /me as the route does, and answers exactly the route's answer", async () => {
    const proxy = core('FREE');
    const shortcut = offered(proxy, 'GET', 'svc_at=token%2Bone; other=1');
    expect(shortcut?.call).toEqual({ accessToken: 'token+one', clientIp: '203.0.113.7' });
    const routes = await proxy.answer(request('GET', 'svc_at=token%2Bone; other=1'), proxy.match('GET', '/session'));
    expect(shortcut!.answer(USER)).toEqual(routes);
    expect(routes).toEqual({ status: 200, body: { data: { user: USER, poweredByService: true } }, headers: { 'Cache-Control': 'no-store' }, cookies: [] });
  });

  it('is not offered where the route may do more than answer the user', () => {
    const proxy = core('PRO');
    expect(offered(proxy, 'GET', 'svc_at=a')).not.toBeNull();
    // HEAD, another route, no access cookie (a refresh), an empty one, copies (cleared), a refresh cookie copied.
    expect(offered(proxy, 'HEAD', 'svc_at=a')).toBeNull();
    expect(offered(proxy, 'POST', 'svc_at=a', '/refresh')).toBeNull();
    expect(offered(proxy, 'GET', undefined)).toBeNull();
    expect(offered(proxy, 'GET', 'svc_rt=r')).toBeNull();
    expect(offered(proxy, 'GET', 'svc_at=; svc_rt=r')).toBeNull();
    expect(offered(proxy, 'GET', 'svc_at=a; svc_at=b')).toBeNull();
    expect(offered(proxy, 'GET', 'svc_at=a; svc_rt=r; svc_rt=s')).toBeNull();
  });

  it('waits for the branding answer: not offered before it came, offered with it after', async () => {
    let answer: (value: { poweredByService: boolean }) => void = () => {};
    const proxy = core(undefined, () => new Promise((resolve) => (answer = resolve)));
    expect(offered(proxy, 'GET', 'svc_at=a')).toBeNull();
    const first = proxy.answer(request('GET', 'svc_at=a'), proxy.match('GET', '/session'));
    expect(offered(proxy, 'GET', 'svc_at=a')).toBeNull();
    answer({ poweredByService: false });
    expect((await first).body).toEqual({ data: { user: USER, poweredByService: false } });
    expect(offered(proxy, 'GET', 'svc_at=a')!.answer(USER).body).toEqual({ data: { user: USER, poweredByService: false } });
  });
});

describe('MeAsker', () => {
  let api: Server;
  let url: string;
  let seen: IncomingHttpHeaders[];
  /** What the fake API answers next: a status and a body, or 'hang up' (the socket destroyed mid-answer). */
  let next: { status: number; body: string } | 'hang up';
  const agent = new Agent();

  beforeAll(async () => {
    api = createServer((req, res) => {
      seen.push(req.headers);
      if (next === 'hang up') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('{"data":');
        return void setTimeout(() => res.destroy(), 10);
      }
      res.writeHead(next.status, { 'Content-Type': 'application/json' });
      res.end(next.body);
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  beforeEach(() => (seen = []));
  afterAll(async () => {
    await agent.close();
    await new Promise((resolve) => api.close(resolve));
  });

  const ask = (base = url) => new Promise<UserMe | 'other'>((resolve) => new MeAsker(agent, base, 'svc_sbx_key').ask({ accessToken: 'tok', clientIp: '203.0.113.7' }, resolve, () => resolve('other')));

  it("reports the user of a 200, having sent the SDK's headers", async () => {
    next = { status: 200, body: JSON.stringify({ data: { user: USER } }) };
    expect(await ask()).toEqual(USER);
    const sent = callHeaders('svc_sbx_key', { accessToken: 'tok', clientIp: '203.0.113.7' });
    expect(seen).toHaveLength(1);
    for (const [name, value] of Object.entries(sent)) expect(seen[0][name.toLowerCase()]).toBe(value);
  });

  it.each([
    ['a 401', { status: 401, body: JSON.stringify({ error: 'invalid_token', message: 'x' }) }],
    ['a 403 ban', { status: 403, body: JSON.stringify({ error: 'user_banned', message: 'x' }) }],
    ['a 503', { status: 503, body: JSON.stringify({ error: 'service_unavailable', message: 'x' }) }],
    ['a 200 that is not JSON', { status: 200, body: '<html>' }],
    ['a 200 without a user', { status: 200, body: JSON.stringify({ data: {} }) }],
    ['a 200 whose user is not an object', { status: 200, body: JSON.stringify({ data: { user: 'ada' } }) }],
    ['an answer cut off', 'hang up' as const],
  ])('hands %s to the route', async (_what, answer) => {
    next = answer;
    expect(await ask()).toBe('other');
  });

  it('hands an API it cannot reach to the route', async () => {
    expect(await ask('http://127.0.0.1:9')).toBe('other');
  });
});

describe('the standalone server against the real API', () => {
  let api: RealApi;
  let project: TestProject;
  let jar: CookieJar;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject({ name: 'Shortcut', plan: 'PRO' });
  });
  afterAll(() => api.close());

  /** The standalone server's listener; with `svc`, every request goes through the route. */
  const start = (svc?: SvcClient) =>
    listen(createServer(createProxyServerListener({ port: 0, host: null, staticDir: null, trustProxy: false, proxy: { apiKey: project.live, baseUrl: api.url, svc } })));

  const view = async (res: Response) => ({
    status: res.status,
    headers: [...res.headers].filter(([name]) => name !== 'date'),
    body: await res.text(),
  });

  it('answers a signed-in GET session byte for byte as the route does, head included', async () => {
    const shortcut = await start();
    const routeOnly = await start(createSvcClient({ apiKey: project.live, baseUrl: api.url }));
    try {
      jar = new CookieJar().store(await postJson(shortcut, '/api/session/signup', { email: 'short@example.com', password: PASSWORD }));
      const get = (server: { url: string }) => fetch(`${server.url}/api/session/session`, { headers: { Cookie: jar.header() } });
      // The first view asks branding; the ones after it take the shortcut.
      for (let i = 0; i < 3; i++) expect(await view(await get(shortcut))).toEqual(await view(await get(routeOnly)));
      const last = await get(shortcut);
      expect(last.status).toBe(200);
      expect((await json(last)).data).toMatchObject({ user: { email: 'short@example.com' }, poweredByService: false });
    } finally {
      await Promise.all([shortcut.close(), routeOnly.close()]);
    }
  });

  it('hands a refused access token to the route, which asks again, then refreshes', async () => {
    const proxy = await startProxy({ adapter: 'standalone', apiKey: project.live, baseUrl: api.url, accountPlan: 'PRO' });
    try {
      jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'refused@example.com', password: PASSWORD }));
      proxy.upstream.splice(0);
      const res = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: `svc_at=not-a-token; svc_rt=${encodeURIComponent(jar.values.get('svc_rt')!)}` } });
      expect(res.status).toBe(200);
      expect((await json(res)).data.user.email).toBe('refused@example.com');
      expect(res.headers.getSetCookie().some((line) => line.startsWith('svc_at='))).toBe(true);
      // The shortcut's call, the route's, the rotation, and /me with the new access token.
      expect(proxy.upstream).toEqual(['GET /api/auth/me', 'GET /api/auth/me', 'POST /api/auth/refresh', 'GET /api/auth/me']);
    } finally {
      await proxy.close();
    }
  });
});
