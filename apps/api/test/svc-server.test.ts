import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { followRedirect } from '@svc/adapters-oauth/testing';
import { ConfigError, createSvcServer, type SvcServer } from '../src';
import { APP_URL, providerSettings, startProviders, type Providers } from './oauth-helpers';

// @svc/server as a library: the whole service built by createSvcServer from a config object and
// mounted under /auth in someone else's Express app, which parses JSON itself and has routes of
// its own. Every URL the service hands out (token issuer, OIDC issuer, OAuth callback) carries
// the mount path, because baseUrl does.

const ADMIN = 'factory-test-admin-token-0123456789abcdefgh';

describe('createSvcServer mounted under /auth in an Express app', () => {
  let dir: string;
  let host: Server;
  let origin: string;
  let svc: SvcServer;
  let providers: Providers;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-factory-'));
    providers = await startProviders();
    const app = express();
    app.use(express.json()); // the host parses bodies before the service sees them
    app.get('/hello', (_req, res) => void res.json({ hello: 'host' }));
    let mounted: SvcServer['handler'] | undefined;
    app.use('/auth', (req, res, next) => (mounted ? mounted(req, res, next) : next()));
    host = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => host.once('listening', () => resolve()));
    origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    svc = await createSvcServer({ baseUrl: `${origin}/auth`, dataDir: dir, bcryptCost: 4, adminToken: ADMIN, masterKey: '6'.repeat(64), logLevel: 'silent' });
    mounted = svc.handler;
    await svc.start();
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    host?.closeAllConnections();
    await new Promise((resolve) => host?.close(resolve));
    await providers?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${origin}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as any };
  };
  const adminAuth = { Authorization: `Bearer ${ADMIN}` };

  it('answers the admin API, sign-up and /me under the mount path; the host keeps its own routes', async () => {
    const created = await post('/auth/admin/projects', { name: 'Mounted', plan: 'PRO', redirectUrls: [APP_URL] }, adminAuth);
    expect(created.status).toBe(201);
    const key = created.body.data.apiKeys.production as string;

    const signedUp = await post('/auth/api/auth/signup', { email: 'ada@example.test', password: 'correct horse battery' }, { 'X-API-Key': key });
    expect(signedUp.status).toBe(201);
    expect(claimsOf(signedUp.body.data.accessToken).iss).toBe(`${origin}/auth`);

    const me = await get('/auth/api/auth/me', { 'X-API-Key': key, Authorization: `Bearer ${signedUp.body.data.accessToken}` });
    expect(me.status).toBe(200);
    expect(me.body.data.user.email).toBe('ada@example.test');

    // A body the host already parsed is still checked by the service's own rules.
    const short = await post('/auth/api/auth/signup', { email: 'bob@example.test', password: 'short' }, { 'X-API-Key': key });
    expect({ status: short.status, error: short.body.error }).toEqual({ status: 400, error: 'validation_error' });

    expect((await get('/auth/readyz')).body).toEqual({ data: { status: 'ready' } });
    expect(await get('/auth/no-such-thing')).toEqual({ status: 404, body: { error: 'not_found', message: expect.any(String) } });
    expect(await get('/hello')).toEqual({ status: 200, body: { hello: 'host' } });
  });

  it('publishes OIDC issuers and OAuth callbacks under the mount path', async () => {
    const created = await post('/auth/admin/projects', { name: 'Issuer', plan: 'PRO', redirectUrls: [APP_URL] }, adminAuth);
    const projectId = created.body.data.project.id as string;
    const key = created.body.data.apiKeys.production as string;

    const discovery = await get(`/auth/api/oidc/${projectId}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.body.issuer).toBe(`${origin}/auth/api/oidc/${projectId}`);
    expect(discovery.body.token_endpoint).toMatch(new RegExp(`^${origin}/auth/api/oidc/${projectId}/`));
    expect((await get(new URL(discovery.body.jwks_uri).pathname)).status).toBe(200);

    const put = await fetch(`${origin}/auth/admin/projects/${projectId}/oauth-providers/github`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', ...adminAuth },
      body: JSON.stringify(providerSettings(providers).github),
    });
    expect(put.status).toBe(200);
    const initiated = await post('/auth/api/auth/oauth/github', {}, { 'X-API-Key': key });
    const callback = await followRedirect(initiated.body.data.authorizationUrl);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${origin}/auth/api/auth/oauth/github/callback`);
    // The browser comes back through the host app, under the mount path, and lands on the app.
    const landing = await fetch(callback, { redirect: 'manual' });
    expect(landing.status).toBe(302);
    const code = new URL(landing.headers.get('location')!).searchParams.get('code');
    const exchanged = await post('/auth/api/auth/oauth/token', { code }, { 'X-API-Key': key });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.data.provider).toBe('github');
  });
});

describe('createSvcServer on its own port', () => {
  it('listens when asked, answers until stop(), then refuses connections', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-factory-'));
    try {
      const svc = await createSvcServer({ dataDir: dir, bcryptCost: 4, logLevel: 'silent' });
      const { url } = await svc.start({ port: 0, host: '127.0.0.1' });
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ data: { status: 'ok' } });
      await svc.stop();
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('reports every invalid field at once, as loadConfig does, naming the fields', async () => {
    const error = await createSvcServer({ bcryptCost: 99, baseUrl: 'ftp://example.test', port: -1 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^bcryptCost /m);
    expect(problems).toMatch(/^baseUrl /m);
    expect(problems).toMatch(/^port /m);
  });
});

/** The claims of a JWT, unverified (the issuer is all that is looked at). */
function claimsOf(jwt: string): { iss?: string } {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
}
