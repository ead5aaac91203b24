import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { json, startProxy } from './helpers';

// An API whose database cannot answer in time says 503 service_unavailable with Retry-After; the
// proxy passes that on (the browser may retry), where any other 5xx of the API becomes its own 500.

describe('the API answering 503 service_unavailable', () => {
  let api: Server;
  let url: string;

  beforeAll(async () => {
    api = createServer((req, res) => {
      const unavailable = req.url === '/api/auth/me';
      res.writeHead(unavailable ? 503 : 500, { 'Content-Type': 'application/json', ...(unavailable ? { 'Retry-After': '5' } : {}) });
      res.end(JSON.stringify(unavailable ? { error: 'service_unavailable', message: 'The service cannot answer right now. Retry later.' } : { error: 'internal_error', message: 'x' }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => api.close(resolve)));

  it('passes it through with Retry-After; another 5xx stays the proxy own 500', async () => {
    const proxy = await startProxy({ apiKey: 'svc_sbx_k', baseUrl: url, accountPlan: 'PRO' });
    try {
      const session = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: 'svc_at=x' } });
      expect(session.status).toBe(503);
      expect(session.headers.get('retry-after')).toBe('5');
      expect((await json(session)).error).toBe('service_unavailable');
      const signup = await fetch(`${proxy.url}/api/session/signup`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: proxy.url },
        body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery' }),
      });
      expect({ status: signup.status, error: (await json(signup)).error }).toEqual({ status: 500, error: 'internal_error' });
    } finally {
      await proxy.close();
    }
  });
});
