import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import type { UserMe } from '@svc/sdk';
import { createSessionHandler, createUserGuard } from '@svc/proxy/web';
import { CookieJar, PASSWORD, postJson, startRealApi, type RealApi, json } from './helpers';

// The web-standard handler and guard as a Hono app mounts them, over real HTTP (@hono/node-server)
// against the real API, with the SDK's default fetch transport (what edge runtimes use).
describe('in a Hono app', () => {
  let api: RealApi;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    api = await startRealApi();
    const { live: apiKey } = await api.createProject();
    const proxy = createSessionHandler({ apiKey, baseUrl: api.url });
    const guard = createUserGuard({ apiKey, baseUrl: api.url });
    const app = new Hono<{ Bindings: HttpBindings; Variables: { user: UserMe } }>();
    app.all('/api/session/*', (c) => proxy(c.req.raw, { clientIp: c.env.incoming.socket.remoteAddress }));
    app.use('/api/notes/*', async (c, next) => {
      const result = await guard.check(c.req.raw, { clientIp: c.env.incoming.socket.remoteAddress });
      if ('response' in result) return result.response;
      c.req.raw = result.request;
      c.set('user', result.user);
      await next();
    });
    app.get('/api/notes/mine', (c) => c.json({ data: { owner: c.req.header('x-svc-user-id'), role: c.req.header('x-svc-user-role'), email: c.get('user').email } }));
    app.post('/api/notes', async (c) => c.json({ data: { saved: await c.req.json(), by: c.req.header('x-svc-user-email') } }, 201));
    server = createAdaptorServer({ fetch: app.fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await api.close();
  });

  it('signs up, reads the session, reaches guarded routes, and loses them on logout', async () => {
    const signup = await postJson({ url }, '/api/session/signup', { email: 'hono@example.com', password: PASSWORD });
    expect(signup.status).toBe(201);
    const jar = new CookieJar().store(signup);
    expect([...jar.values.keys()].sort()).toEqual(['svc_at', 'svc_did', 'svc_rt']);

    const session = await fetch(`${url}/api/session/session`, { headers: { Cookie: jar.header() } });
    const { user } = (await json(session)).data;
    expect(user.email).toBe('hono@example.com');

    const spoof = { 'X-Svc-User-Id': 'admin', 'X-Svc-User-Role': 'admin' };
    const mine = await fetch(`${url}/api/notes/mine`, { headers: { ...spoof, Cookie: jar.header() } });
    expect(await json(mine)).toEqual({ data: { owner: user.id, role: user.role, email: 'hono@example.com' } });
    // The request body reaches the guarded handler through the guard's copy of the request.
    const saved = await fetch(`${url}/api/notes`, { method: 'POST', headers: { Cookie: jar.header(), 'Content-Type': 'application/json' }, body: '{"text":"hi"}' });
    expect([saved.status, await json(saved)]).toEqual([201, { data: { saved: { text: 'hi' }, by: 'hono@example.com' } }]);

    const anonymous = await fetch(`${url}/api/notes/mine`, { headers: spoof });
    expect([anonymous.status, await json(anonymous)]).toEqual([401, { error: 'invalid_token', message: expect.any(String) }]);

    const logout = await postJson({ url }, '/api/session/logout', {}, { Cookie: jar.header() });
    expect(logout.status).toBe(200);
    expect((await fetch(`${url}/api/notes/mine`, { headers: { Cookie: jar.header() } })).status).toBe(401);
    expect((await fetch(`${url}/api/session/session`, { headers: { Cookie: jar.store(logout).header() } })).status).toBe(401);
  });

  it('answers the proxy rules for the routes it does not have', async () => {
    const res = await fetch(`${url}/api/session/login`);
    expect([res.status, await json(res)]).toEqual([404, { error: 'not_found', message: expect.any(String) }]);
    const foreign = await fetch(`${url}/api/session/login`, { method: 'POST', headers: { Origin: 'https://evil.example', 'Content-Type': 'application/json' }, body: '{}' });
    expect(foreign.status).toBe(403);
  });
});
