import { join } from 'node:path';
import { CookieJar, PASSWORD, postJson, setCookiesOf, startRealApi, type RealApi, type TestProject, json } from './helpers';
import { freePort, spawnStandaloneProxy, waitForHttp } from './standalone';

// `pnpm start:proxy` as a real process: configuration errors, static files, proxy routes, SIGTERM.
describe('standalone proxy server', () => {
  let api: RealApi;
  let project: TestProject;

  beforeAll(async () => {
    api = await startRealApi();
    project = await api.createProject();
  });
  afterAll(() => api.close());

  it('refuses to start without SVC_API_KEY and says why', async () => {
    const proxy = spawnStandaloneProxy({});
    expect(await proxy.exited).toBe(1);
    expect(proxy.output()).toContain('SVC_API_KEY is required');
  }, 30_000);

  it('serves the static folder and the session routes on one origin, and stops on SIGTERM', async () => {
    const port = await freePort();
    const proxy = spawnStandaloneProxy({
      SVC_API_KEY: project.sandbox,
      SVC_API_URL: api.url,
      PROXY_PORT: String(port),
      PROXY_STATIC_DIR: join(__dirname, '..', '..', 'demo'),
      SVC_COOKIE_PREFIX: 'demo',
      SVC_ACCOUNT_PLAN: 'SOLO',
    });
    const url = `http://localhost:${port}`;
    try {
      await waitForHttp(`${url}/healthz`, proxy);
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(await page.text()).toContain('<title>');
      expect((await fetch(`${url}/api/session/session`)).status).toBe(401);
      const signup = await postJson({ url }, '/api/session/signup', { email: 'standalone@example.com', password: PASSWORD });
      expect(signup.status).toBe(201);
      expect(Object.keys(setCookiesOf(signup)).sort()).toEqual(['demo_at', 'demo_rt']);
      const session = await fetch(`${url}/api/session/session`, { headers: { Cookie: new CookieJar().store(signup).header() } });
      expect((await json(session)).data).toMatchObject({ user: { email: 'standalone@example.com' }, poweredByService: false });
      expect((await fetch(`${url}/no-such-file.txt`)).status).toBe(404);
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
    expect(proxy.output()).toContain('shutting down');
  }, 40_000);
});
