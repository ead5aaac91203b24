// A customer's Hono app on Node (@hono/node-server), as docs/integration.md shows it: the
// web-standard session handler of @svc/proxy/web under /api/session and a route guarded by
// createUserGuard. SVC_API_KEY and SVC_API_URL name the API; prints {"port": n} once it listens.
import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono } from 'hono';
import { createSessionHandler, createUserGuard } from '@svc/proxy/web';

const options = { apiKey: process.env.SVC_API_KEY, baseUrl: process.env.SVC_API_URL };
const proxy = createSessionHandler(options);
const guard = createUserGuard(options);

const app = new Hono();
app.all('/api/session/*', (c) => proxy(c.req.raw, { clientIp: getConnInfo(c).remote.address }));
app.use('/api/notes/*', async (c, next) => {
  const result = await guard.check(c.req.raw, { clientIp: getConnInfo(c).remote.address });
  if ('response' in result) return result.response;
  c.req.raw = result.request;
  c.set('user', result.user);
  await next();
});
app.get('/api/notes', (c) => c.json({ owner: c.req.header('x-svc-user-id'), email: c.get('user').email }));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(JSON.stringify({ port: info.port })));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
