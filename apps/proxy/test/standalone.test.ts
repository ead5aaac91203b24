import { Agent, get } from 'node:http';
import { createServer } from 'node:net';
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
      // The proxy's own answers carry the security headers too, beside their own.
      const anonymous = await fetch(`${url}/api/session/session`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(anonymous.headers.get('x-content-type-options')).toBe('nosniff');
      expect(anonymous.headers.get('cache-control')).toBe('no-store');
      expect(anonymous.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(anonymous.headers.get('content-length'))).toBe(Buffer.byteLength(await anonymous.text()));
      const signup = await postJson({ url }, '/api/session/signup', { email: 'standalone@example.com', password: PASSWORD });
      expect(signup.status).toBe(201);
      expect(signup.headers.get('referrer-policy')).toBe('same-origin');
      expect(signup.headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(Object.keys(setCookiesOf(signup)).sort()).toEqual(['demo_at', 'demo_did', 'demo_rt']);
      const session = await fetch(`${url}/api/session/session`, { headers: { Cookie: new CookieJar().store(signup).header() } });
      expect((await json(session)).data).toMatchObject({ user: { email: 'standalone@example.com' }, poweredByService: false });
      expect((await fetch(`${url}/no-such-file.txt`)).status).toBe(404);
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
    expect(proxy.output()).toContain('shutting down');
  }, 40_000);

  it('says which port is taken and exits 1', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, () => resolve((taken.address() as { port: number }).port)));
    try {
      const proxy = spawnStandaloneProxy({ SVC_API_KEY: project.sandbox, SVC_API_URL: api.url, PROXY_PORT: String(port) });
      expect(await proxy.exited).toBe(1);
      expect(proxy.output()).toContain(`port ${port} is already in use`);
      expect(proxy.output()).not.toContain('TypeError');
    } finally {
      taken.close();
    }
  }, 30_000);

  it('binds to PROXY_HOST only', async () => {
    const port = await freePort();
    const proxy = spawnStandaloneProxy({ SVC_API_KEY: project.sandbox, SVC_API_URL: api.url, PROXY_PORT: String(port), PROXY_HOST: '127.0.0.2' });
    try {
      await waitForHttp(`http://127.0.0.2:${port}/healthz`, proxy);
      expect((await fetch(`http://127.0.0.2:${port}/healthz`)).status).toBe(200);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      expect(proxy.output()).toContain(`http://127.0.0.2:${port}`);
    } finally {
      expect(await proxy.stop()).toBe(0);
    }
  }, 30_000);

  it('drains on SIGTERM under keep-alive load: exits 0 promptly and no request fails', async () => {
    const port = await freePort();
    const proxy = spawnStandaloneProxy({ SVC_API_KEY: project.sandbox, SVC_API_URL: api.url, PROXY_PORT: String(port), SVC_ACCOUNT_PLAN: 'PRO' });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, proxy);
    const cookie = new CookieJar().store(await postJson({ url }, '/api/session/signup', { email: 'drain@example.com', password: PASSWORD })).header();
    // Eight keep-alive connections, each sending its next GET session as soon as the last answer ends.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const statuses: number[] = [];
    const failures: string[] = [];
    const once = () =>
      new Promise<number>((resolve, reject) => {
        get(`${url}/api/session/session`, { agent, headers: { Cookie: cookie } }, (res) => {
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        }).once('error', reject);
      });
    const worker = async () => {
      for (;;) {
        try {
          statuses.push(await once());
        } catch (error) {
          // Refused: the proxy no longer accepts connections, so this request was never taken in.
          if ((error as NodeJS.ErrnoException).code !== 'ECONNREFUSED') failures.push(String(error));
          return;
        }
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, worker));
    try {
      while (statuses.length < 200) await new Promise((resolve) => setTimeout(resolve, 20));
      const signalled = Date.now();
      proxy.child.kill('SIGTERM');
      expect(await proxy.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(5000);
      await load;
      expect(failures).toEqual([]);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(proxy.output()).toContain('stopped');
    } finally {
      agent.destroy();
      await proxy.stop();
    }
  }, 40_000);
});
