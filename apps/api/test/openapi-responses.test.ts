import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import express from 'express';
import request, { type Response } from 'supertest';
import { totpStepAt } from '@svc/core';
import { fromBase32, hotp } from '@svc/core/testing';
import { createSessionProxy } from '@svc/proxy';
import { loadOpenApiDocument } from '../src/http/openapi';
import { responseValidator } from './support/openapi-check';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// Real answers of the real composition (SQLite, bcrypt, RS256, OIDC provider) and of the session
// proxy over it, each validated against the documented schema of its operation and status: a
// response that drifts from apps/api/openapi/openapi.yaml fails here.

const doc = loadOpenApiDocument();
const ORIGIN = 'https://app.example.test';

describe('real responses match the OpenAPI document', () => {
  let real: RealApp;
  const problems: string[] = [];
  const seen = new Set<string>();

  /** Validates one supertest answer against the document; returns its body for the next step. */
  function checked(server: 'api' | 'proxy', validate: ReturnType<typeof responseValidator>) {
    return (res: Response) => {
      const req = (res as unknown as { req: { method: string; path: string } }).req;
      const body = (res.type ?? '').includes('json') ? res.body : res.text;
      problems.push(...validate({ method: req.method, path: req.path, status: res.status, contentType: res.headers['content-type'], body }));
      seen.add(`${server} ${req.method} ${req.path.split('?')[0].replace(/[0-9a-f-]{36}/g, '{id}')} ${res.status}`);
      return res.body;
    };
  }
  const api = checked('api', responseValidator(doc, 'api'));
  const proxyChecked = checked('proxy', responseValidator(doc, 'proxy'));

  beforeAll(async () => {
    real = await startRealApp();
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });
  afterEach(() => {
    expect(problems.splice(0)).toEqual([]);
  });

  const admin = () => ({ Authorization: `Bearer ${REAL_ADMIN_TOKEN}` });
  let project: { id: string; live: string; sandbox: string };

  it('health, reference, admin projects, keys and JWKS', async () => {
    const http = request(real.app);
    api(await http.get('/healthz'));
    api(await http.get('/readyz'));
    api(await http.get('/api/openapi.json'));
    api(await http.get('/api/docs'));
    const created = api(
      await http
        .post('/admin/projects')
        .set(admin())
        .send({
          name: 'Shop',
          plan: 'PRO',
          allowedOrigins: [ORIGIN],
          redirectUrls: [`${ORIGIN}/oauth`],
          magicLinkUrl: `${ORIGIN}/magic`,
          passwordResetUrl: `${ORIGIN}/reset`,
          defaultMeta: { tier: 'basic' },
        }),
    );
    project = { id: created.data.project.id, live: created.data.apiKeys.production, sandbox: created.data.apiKeys.sandbox };
    api(await http.post('/admin/projects').set(admin()).send({ name: '' }));
    api(await http.post('/admin/projects').send({ name: 'x' }));
    api(await http.get(`/admin/projects/${project.id}`).set(admin()));
    api(await http.get(`/admin/projects/${randomUUID()}`).set(admin()));
    api(
      await http
        .patch(`/admin/projects/${project.id}`)
        .set(admin())
        .send({ userLimit: 100, emailTemplates: { magicLink: { subject: 'Sign in to {{projectName}}' } } }),
    );
    const issued = api(await http.post(`/admin/projects/${project.id}/api-keys`).set(admin()).send({ environment: 'sandbox' }));
    api(await http.get(`/admin/projects/${project.id}/api-keys`).set(admin()));
    api(await http.delete(`/admin/projects/${project.id}/api-keys/${issued.data.id}`).set(admin()));
    api(await http.get(`/admin/projects/${project.id}/environments/production/public-key`).set(admin()));
    api(await http.post(`/admin/projects/${project.id}/environments/sandbox/signing-keys/rotate`).set(admin()));
    api(await http.get(`/api/projects/${project.id}/sandbox/jwks.json`));
    api(await http.get(`/api/projects/${project.id}/staging/jwks.json`));
    api(await http.get('/metrics').set(admin()));
    api(await http.get('/metrics'));
  }, 60_000);

  it('sign-up, login, refresh, me, branding, logout and their errors', async () => {
    const http = request(real.app);
    const key = { 'X-API-Key': project.live };
    const account = { email: 'ada@example.com', password: 'correct horse battery' };
    const signup = api(
      await http
        .post('/api/auth/signup')
        .set(key)
        .send({ ...account, meta: { name: 'Ada' } }),
    );
    expect(signup.data.user.meta).toEqual({ tier: 'basic', name: 'Ada' });
    api(await http.post('/api/auth/signup').set(key).send(account));
    api(await http.post('/api/auth/signup').set(key).send({ email: 'not-an-email', password: 'long enough' }));
    api(await http.post('/api/auth/signup').send(account));
    api(await http.post('/api/auth/signup').set('X-API-Key', 'svc_test_nope').send(account));
    api(await http.post('/api/auth/signup').set(key).set('Content-Type', 'text/plain').send('email=x'));
    api(
      await http
        .post('/api/auth/signup')
        .set(key)
        .send({ ...account, meta: { pad: 'x'.repeat(70_000) } }),
    );
    const login = api(await http.post('/api/auth/login').set(key).send(account));
    api(
      await http
        .post('/api/auth/login')
        .set(key)
        .send({ ...account, password: 'wrong password' }),
    );
    api(await http.post('/api/auth/login').set(key).set('Origin', 'https://evil.example.test').send(account));
    const bearer = { Authorization: `Bearer ${login.data.accessToken}` };
    api(await http.get('/api/auth/me').set(key).set(bearer));
    api(await http.get('/api/auth/me').set(key).set('Origin', ORIGIN).set(bearer));
    api(await http.get('/api/auth/me').set(key));
    const refreshed = api(await http.post('/api/auth/refresh').set(key).send({ refreshToken: login.data.refreshToken }));
    api(await http.post('/api/auth/refresh').set(key).send({ refreshToken: login.data.refreshToken }));
    api(await http.post('/api/auth/refresh').set(key).send({}));
    api(await http.get('/api/auth/sdk/branding').set(key));
    api(await http.post('/api/auth/logout').set(key).send({ refreshToken: refreshed.data.refreshToken }));
  }, 60_000);

  it('magic link and password reset', async () => {
    const http = request(real.app);
    const key = { 'X-API-Key': project.sandbox };
    api(await http.post('/api/auth/magic-link').set(key).send({ email: 'grace@example.com' }));
    api(await http.post('/api/auth/password/reset').set(key).send({ email: 'grace@example.com' }));
    api(await http.post('/api/auth/password/update').set(key).send({ token: 'pr_sbx_nope', newPassword: 'long enough' }));
    api(await http.get(`/api/auth/magic-link/verify?token=ml_sbx_nope&project=${project.id}`));
    api(await http.head(`/api/auth/magic-link/verify?token=x&project=${project.id}`));
    const mailbox = api(await http.get(`/admin/projects/${project.id}/environments/sandbox/outbox?email=grace@example.com`).set(admin()));
    const link = new URL(mailbox.data.mails.find((mail: { template: string }) => mail.template === 'magic_link').links[0]);
    api(await http.get(`/api/auth/magic-link/verify?token=${link.searchParams.get('token')}&project=${project.id}`).set('Origin', ORIGIN));
    api(await http.get(`/admin/projects/${project.id}/outbox/dead`).set(admin()));
  }, 60_000);

  it('second factor, passkeys and the admin user operations', async () => {
    const http = request(real.app);
    const key = { 'X-API-Key': project.sandbox };
    const account = { email: 'totp@example.com', password: 'correct horse battery' };
    const signup = api(await http.post('/api/auth/signup').set(key).send(account));
    const bearer = { Authorization: `Bearer ${signup.data.accessToken}` };
    const started = api(await http.post('/api/auth/2fa/totp/start').set(key).set(bearer));
    const code = (offset = 0) => hotp(fromBase32(started.data.secret), totpStepAt(new Date()) + offset);
    api(
      await http
        .post('/api/auth/2fa/totp/confirm')
        .set(key)
        .set(bearer)
        .send({ code: '000000' === code() ? '111111' : '000000' }),
    );
    api(await http.post('/api/auth/2fa/totp/confirm').set(key).set(bearer).send({ code: code() }));
    const challenge = api(await http.post('/api/auth/login').set(key).send(account));
    expect(challenge.data.twoFactorRequired).toBe(true);
    api(await http.post('/api/auth/2fa/totp/verify').set(key).send({ twoFactorToken: 'nope', code: '123456' }));
    api(
      await http
        .post('/api/auth/2fa/totp/verify')
        .set(key)
        .send({ twoFactorToken: challenge.data.twoFactorToken, code: code(1) }),
    );
    api(
      await http
        .post('/api/auth/2fa/totp/disable')
        .set(key)
        .set(bearer)
        .send({ code: code(-1) }),
    );

    api(await http.post('/api/auth/passkeys/register/options').set(key).set(bearer));
    api(
      await http
        .post('/api/auth/passkeys/register/verify')
        .set(key)
        .set(bearer)
        .send({ response: { id: 'x' } }),
    );
    api(await http.get('/api/auth/passkeys').set(key).set(bearer));
    api(await http.delete(`/api/auth/passkeys/${randomUUID()}`).set(key).set(bearer));
    const options = api(await http.post('/api/auth/passkeys/login/options').set(key).send({ email: account.email }));
    api(
      await http
        .post('/api/auth/passkeys/login/verify')
        .set(key)
        .send({ challengeId: options.data.challengeId, email: account.email, response: { id: 'x' } }),
    );

    const users = `/admin/projects/${project.id}/environments/sandbox/users`;
    api(await http.get(`${users}?email=${account.email}`).set(admin()));
    api(await http.get(`${users}?limit=0`).set(admin()));
    api(await http.post(`${users}/${signup.data.user.id}/ban`).set(admin()));
    api(await http.get('/api/auth/me').set(key).set(bearer));
    api(await http.post(`${users}/${signup.data.user.id}/unban`).set(admin()));
    api(await http.delete(`${users}/${signup.data.user.id}`).set(admin()));
    api(await http.delete(`${users}/${signup.data.user.id}`).set(admin()));
  }, 60_000);

  it('the management API and the console session', async () => {
    const http = request(real.app);
    const key = { 'X-API-Key': project.live };
    const signup = api(await http.post('/api/auth/signup').set(key).send({ email: 'managed@example.com', password: 'correct horse battery' }));
    const users = `/admin/projects/${project.id}/environments/production/users`;
    const user = `${users}/${signup.data.user.id}`;
    api(await http.get('/admin/projects?q=shop&limit=5').set(admin()));
    api(await http.get('/admin/projects?nope=1').set(admin()));
    api(await http.get(`${users}?q=managed`).set(admin()));
    api(
      await http
        .post(users)
        .set(admin())
        .send({ email: 'imported@example.com', role: 'editor', meta: { from: 'csv' } }),
    );
    api(await http.post(users).set(admin()).send({ email: 'imported@example.com' }));
    api(await http.post(users).set(admin()).send({ email: 'bad' }));
    const detail = api(await http.get(user).set(admin()));
    api(await http.get(`${users}/${randomUUID()}`).set(admin()));
    api(
      await http
        .patch(user)
        .set(admin())
        .send({ role: 'editor', meta: { team: 'blue' }, emailVerified: true }),
    );
    api(await http.patch(user).set(admin()).send({ role: 'not ok' }));
    api(await http.delete(`${user}/sessions/${detail.data.user.sessions[0].id}`).set(admin()));
    api(await http.delete(`${user}/sessions/${randomUUID()}`).set(admin()));
    api(await http.post(`${user}/sessions/revoke-all`).set(admin()));
    const stats = `${users.replace(/\/users$/, '')}/stats`;
    api(await http.get(`${stats}?days=3`).set(admin()));
    api(await http.get(`${stats}?days=0`).set(admin()));
    const doomed = api(await http.post('/admin/projects').set(admin()).send({ name: 'Doomed' }));
    api(await http.delete(`/admin/projects/${doomed.data.project.id}`).set(admin()));
    api(await http.delete(`/admin/projects/${doomed.data.project.id}`).set(admin()));

    api(await http.get('/console'));
    api(await http.get('/console/api/session'));
    api(await http.post('/console/api/session').send({ token: 'wrong' }));
    const signedIn = await http.post('/console/api/session').send({ token: REAL_ADMIN_TOKEN });
    const session = api(signedIn);
    const cookie = signedIn.headers['set-cookie'][0].split(';')[0];
    api(await http.get('/console/api/session').set('Cookie', cookie));
    api(await http.delete('/console/api/session').set('Cookie', cookie).set('X-Svc-Csrf', session.data.csrfToken));
  }, 60_000);

  it('social sign-in and the OIDC provider', async () => {
    const http = request(real.app);
    const key = { 'X-API-Key': project.live };
    const providers = `/admin/projects/${project.id}/oauth-providers`;
    api(await http.put(`${providers}/github`).set(admin()).send({ enabled: true, clientId: 'gh-client', clientSecret: 'gh-secret' }));
    api(await http.put(`${providers}/oidc`).set(admin()).send({ enabled: true, clientId: 'c' }));
    api(await http.get(providers).set(admin()));
    api(
      await http
        .post('/api/auth/oauth/github')
        .set(key)
        .send({ redirectUrl: `${ORIGIN}/oauth`, state: 'mine' }),
    );
    api(await http.post('/api/auth/oauth/github').set(key).send({ redirectUrl: 'https://elsewhere.example.test/' }));
    api(await http.get('/api/auth/oauth/github/callback?code=x&state=forged'));
    api(await http.head('/api/auth/oauth/github/callback'));
    api(await http.post('/api/auth/oauth/token').set(key).send({ code: 'nope' }));
    api(await http.delete(`${providers}/github`).set(admin()));

    const clients = `/admin/projects/${project.id}/oidc-clients`;
    const client = api(
      await http
        .post(clients)
        .set(admin())
        .send({ environment: 'production', name: 'Forum', redirectUris: ['https://forum.example.test/cb'] }),
    );
    api(await http.get(`${clients}?environment=production`).set(admin()));
    api(await http.delete(`${clients}/${client.data.clientId}`).set(admin()));
    api(await http.post('/api/auth/oidc/grant').set(key).send({ requestToken: 'nope', approved: false }));
    const free = api(await http.post('/admin/projects').set(admin()).send({ name: 'Free' }));
    api(await http.post('/api/auth/oidc/grant').set('X-API-Key', free.data.apiKeys.production).send({ requestToken: 'nope', approved: false }));
    api(await http.get(`/api/oidc/${project.id}/.well-known/openid-configuration`));
    api(await http.get(`/api/oidc/${free.data.project.id}/.well-known/openid-configuration`));
  }, 60_000);

  it('the session proxy over the API', async () => {
    const server: Server = await new Promise((resolve) => {
      const listening = real.app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const app = express().use(createSessionProxy({ apiKey: project.sandbox, baseUrl }));
      const http = request(app);
      const account = { email: 'proxy@example.com', password: 'correct horse battery' };
      const signup = proxyChecked(await http.post('/api/session/signup').send(account));
      expect(signup.data).not.toHaveProperty('accessToken');
      const login = await http.post('/api/session/login').send(account);
      proxyChecked(login);
      const cookies = login.headers['set-cookie'] as unknown as string[];
      proxyChecked(await http.get('/api/session/session').set('Cookie', cookies));
      proxyChecked(await http.post('/api/session/refresh').set('Cookie', cookies).send({}));
      proxyChecked(await http.post('/api/session/account/totp/start').set('Cookie', cookies).send({}));
      proxyChecked(await http.post('/api/session/passkey/login/options').send({ email: account.email }));
      proxyChecked(await http.post('/api/session/oauth/github').send({}));
      proxyChecked(await http.post('/api/session/login').send({ ...account, password: 'wrong password' }));
      proxyChecked(await http.post('/api/session/login').set('Content-Type', 'text/plain').send('x'));
      proxyChecked(await http.post('/api/session/login').set('Origin', 'https://evil.example.test').send(account));
      proxyChecked(await http.post('/api/session/logout').set('Cookie', cookies).send({}));
      proxyChecked(await http.get('/api/session/session'));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    // Enough of the document was exercised for the check to mean something.
    expect(seen.size).toBeGreaterThanOrEqual(85);
  }, 60_000);
});
