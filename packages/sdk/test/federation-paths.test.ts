import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSvcClient } from '../src';

// OAuth (initiate and exchange) and the OIDC grant need an identity-provider round trip or an
// OIDC authorize flow to succeed (tested in apps/api); here a loopback server records what the SDK
// sends and answers in the contract's shapes.
describe('oauthInitiate, oauthExchange, oidcGrant', () => {
  const seen: Array<{ method: string; path: string; body: unknown; key?: string; ip?: string }> = [];
  let server: Server;
  let url: string;
  const answers: Record<string, unknown> = {
    '/api/auth/oauth/github': { provider: 'github', authorizationUrl: 'https://github.com/login/oauth/authorize?state=s' },
    '/api/auth/oauth/token': {
      user: { id: 'u1', email: 'a@example.com', role: 'user', meta: {}, createdAt: '2026-01-01T00:00:00.000Z' },
      accessToken: 'at',
      refreshToken: 'rt',
      expiresIn: 900,
      provider: 'github',
    },
    '/api/auth/oidc/grant': { redirectUrl: 'https://rp.example/cb?code=c' },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        seen.push({ method: req.method!, path: req.url!, body: JSON.parse(raw || 'null'), key: req.headers['x-api-key'] as string, ip: req.headers['x-svc-client-ip'] as string });
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ data: answers[req.url!] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('send the contract paths and bodies with the key and client address', async () => {
    const svc = createSvcClient({ apiKey: 'svc_live_k', baseUrl: url });
    const call = { clientIp: '2001:db8::1' };
    expect(await svc.oauthInitiate('github', { redirectUrl: 'https://app.example.com/cb', state: 'xyz' }, call)).toEqual(answers['/api/auth/oauth/github']);
    const exchanged = await svc.oauthExchange({ code: 'c1' }, call);
    expect(exchanged).toMatchObject({ provider: 'github', accessToken: 'at' });
    expect(await svc.oidcGrant({ requestToken: 'rq', approved: true, userId: 'u1', scopes: ['openid'] }, call)).toEqual({ redirectUrl: 'https://rp.example/cb?code=c' });
    expect(seen).toEqual([
      { method: 'POST', path: '/api/auth/oauth/github', body: { redirectUrl: 'https://app.example.com/cb', state: 'xyz' }, key: 'svc_live_k', ip: '2001:db8::1' },
      { method: 'POST', path: '/api/auth/oauth/token', body: { code: 'c1' }, key: 'svc_live_k', ip: '2001:db8::1' },
      { method: 'POST', path: '/api/auth/oidc/grant', body: { requestToken: 'rq', approved: true, userId: 'u1', scopes: ['openid'] }, key: 'svc_live_k', ip: '2001:db8::1' },
    ]);
  });
});
