import request from 'supertest';
import { hotp, fromBase32 } from '@svc/core/testing';
import { totpStepAt } from '@svc/core';
import { admin, ISO_DATE, signUp } from './helpers';
import { ADA_GITHUB, adminPut, APP_URL, browserSignIn, CLIENT, exchange, oauthApp, startProviders, type Providers } from './oauth-helpers';

// The social sign-in endpoints (initiate, callback, exchange) end to end against real identity providers on loopback: the OpenID
// one (oauth2-mock-server) in the `google` and `oidc` slots, and GitHub- and Discord-shaped ones.

let providers: Providers;
beforeAll(async () => {
  providers = await startProviders();
});
afterAll(() => providers.stop());
beforeEach(() => {
  providers.github.account = structuredClone(ADA_GITHUB);
  providers.discord.account = { ...providers.discord.account, verified: true };
  providers.openid.account = { sub: 'oidc-ada', email: 'ada@example.com', email_verified: true };
});

describe('social sign-in: the three steps', () => {
  it.each(['google', 'oidc', 'github', 'discord'])('%s: initiate, provider, callback, exchange', async (provider) => {
    const { app, project } = await oauthApp(providers);
    const landing = await browserSignIn(app, project.live, provider, { state: 'caller-csrf-1' });
    expect(`${landing.origin}${landing.pathname}`).toBe(APP_URL);
    expect([...landing.searchParams.keys()]).toEqual(['code', 'provider', 'state']);
    expect(landing.searchParams.get('provider')).toBe(provider);
    expect(landing.searchParams.get('state')).toBe('caller-csrf-1');
    const res = await exchange(app, project.live, landing.searchParams.get('code')).expect(200);
    expect(res.body).toEqual({
      data: {
        user: { id: expect.any(String), email: 'ada@example.com', role: 'user', meta: {}, createdAt: expect.stringMatching(ISO_DATE) },
        accessToken: expect.any(String),
        refreshToken: expect.any(String),
        expiresIn: 900,
        provider,
      },
    });
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${res.body.data.accessToken}`).expect(200);
    expect(me.body.data.user).toMatchObject({ email: 'ada@example.com', emailVerified: true, lastLoginAt: expect.stringMatching(ISO_DATE) });
  });

  it('sends PKCE (S256) to every provider and a nonce to the OpenID ones', async () => {
    const { app, project } = await oauthApp(providers);
    for (const provider of ['google', 'github', 'discord']) {
      const init = await request(app).post(`/api/auth/oauth/${provider}`).set('X-API-Key', project.live).send({}).expect(200);
      const query = new URL(init.body.data.authorizationUrl).searchParams;
      expect(query.get('code_challenge_method')).toBe('S256');
      expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(query.get('redirect_uri')).toBe(`http://svc.test/api/auth/oauth/${provider}/callback`);
      expect(query.has('nonce')).toBe(provider === 'google');
    }
    await browserSignIn(app, project.live, 'github');
    expect(providers.github.tokenRequests.at(-1)).toMatchObject({ code_verifier: expect.any(String), client_secret: CLIENT.clientSecret });
  });

  it('signs the same provider account in as the same user, and links other providers by verified e-mail', async () => {
    const { app, project } = await oauthApp(providers);
    const ids = new Set<string>();
    for (const provider of ['github', 'github', 'discord', 'google', 'oidc']) {
      const landing = await browserSignIn(app, project.live, provider);
      ids.add((await exchange(app, project.live, landing.searchParams.get('code')).expect(200)).body.data.user.id);
    }
    expect(ids.size).toBe(1);
  });

  it('uses the provider default redirect URL, then the project first one; a localhost URL may be http', async () => {
    const { app, project } = await oauthApp(providers);
    expect((await browserSignIn(app, project.live, 'discord', { redirectUrl: null })).href.startsWith(`${APP_URL}?`)).toBe(true);
    const local = 'http://localhost:3000/auth/done';
    await adminPut(app, `/admin/projects/${project.id}/oauth-providers/discord`, { ...CLIENT, enabled: true, ...providers.discord.endpoints(), redirectUrl: local }).expect(200);
    expect((await browserSignIn(app, project.live, 'discord')).href.startsWith(`${local}?code=`)).toBe(true);
  });

  it('admin API: seals the secret, never shows it, keeps it on a PUT without one, lists and removes', async () => {
    const { app, project, deps } = await oauthApp(providers);
    const path = `/admin/projects/${project.id}/oauth-providers`;
    const put = await adminPut(app, `${path}/github`, { enabled: true, clientId: 'gh-2', ...providers.github.endpoints() }).expect(200);
    expect(put.body.data.provider).toMatchObject({ provider: 'github', environment: 'production', clientId: 'gh-2', clientSecretSet: true, scopes: ['read:user', 'user:email'] });
    expect(JSON.stringify(put.body)).not.toContain(CLIENT.clientSecret);
    const stored = await deps.oauthProviders.find({ projectId: project.id, environment: 'production' }, 'github');
    expect(stored?.sealedClientSecret).not.toContain(CLIENT.clientSecret);
    const list = await admin(app).get(`${path}?environment=production`).expect(200);
    expect(list.body.data.providers.map((p: { provider: string }) => p.provider)).toEqual(['discord', 'github', 'google', 'oidc']);
    expect((await admin(app).get(`${path}?environment=sandbox`).expect(200)).body.data.providers).toEqual([]);
    expect((await adminPut(app, `${path}/discord`, { enabled: true, clientId: 'x', environment: 'sandbox' }).expect(400)).body.message).toBe('clientSecret is required.');
    await admin(app).delete(`${path}/oidc`).expect(200);
    await admin(app).delete(`${path}/oidc`).expect(404);
    for (const [slug, body] of [
      ['twitter', { enabled: true, clientId: 'x', clientSecret: 'y' }],
      ['oidc', { enabled: true, clientId: 'x', clientSecret: 'y' }],
      ['github', { enabled: true, clientId: 'x', clientSecret: 'y', tokenUrl: 'http://idp.example.test/token' }],
      ['github', { enabled: true, clientId: 'x', clientSecret: 'y', redirectUrl: 'https://evil.test/cb' }],
      ['google', { enabled: true, clientId: 'x', clientSecret: 'y', scopes: ['email'] }],
    ] as const) {
      expect((await adminPut(app, `${path}/${slug}`, body).expect(400)).body.error).toBe('validation_error');
    }
    await request(app).put(`${path}/github`).send({ enabled: true, clientId: 'x', clientSecret: 'y' }).expect(401);
  });
});

describe('social sign-in: accounts and linking rules', () => {
  it('never links an unverified provider e-mail to an existing account, nor creates one', async () => {
    const { app, project } = await oauthApp(providers);
    await signUp(app, project.live, 'ada@example.com');
    providers.openid.account = { sub: 'oidc-ada', email: 'ada@example.com', email_verified: false };
    const landing = await browserSignIn(app, project.live, 'oidc', { state: 's-1' });
    expect(Object.fromEntries(landing.searchParams)).toEqual({ error: 'email_not_verified', provider: 'oidc', state: 's-1' });
    const users = await admin(app).get(`/admin/projects/${project.id}/environments/production/users`).expect(200);
    expect(users.body.data.users).toHaveLength(1);
  });

  it('GitHub without a verified primary address and Discord with verified: false are refused', async () => {
    const { app, project } = await oauthApp(providers);
    providers.github.account = { ...ADA_GITHUB, publicEmail: 'ada@example.com', emails: [{ ...ADA_GITHUB.emails[0], verified: false }] };
    expect((await browserSignIn(app, project.live, 'github')).searchParams.get('error')).toBe('email_not_verified');
    providers.discord.account = { ...providers.discord.account, verified: false };
    expect((await browserSignIn(app, project.live, 'discord')).searchParams.get('error')).toBe('email_not_verified');
  });

  it('a pre-existing password account with an unverified e-mail loses its password and sessions', async () => {
    const { app, project } = await oauthApp(providers);
    const squatter = await signUp(app, project.live, 'ada@example.com', 'squatter password');
    const landing = await browserSignIn(app, project.live, 'github');
    const signedIn = (await exchange(app, project.live, landing.searchParams.get('code')).expect(200)).body.data;
    expect(signedIn.user.id).toBe(squatter.user.id);
    const login = await request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: 'squatter password' });
    expect(login.status).toBe(401);
    await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${signedIn.accessToken}`).expect(200);
    await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${squatter.accessToken}`).expect(401);
    await request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: squatter.refreshToken }).expect(401);
  });

  it('counts OAuth users toward the plan limit and refuses banned users at the callback', async () => {
    const { app, project } = await oauthApp(providers, { userLimit: 1 });
    const ada = (await exchange(app, project.live, (await browserSignIn(app, project.live, 'discord')).searchParams.get('code')).expect(200)).body.data.user;
    providers.github.account = { ...ADA_GITHUB, id: 7, emails: [{ ...ADA_GITHUB.emails[0], email: 'bob@example.com' }] };
    expect((await browserSignIn(app, project.live, 'github')).searchParams.get('error')).toBe('plan_limit_reached');
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${ada.id}/ban`).expect(200);
    expect((await browserSignIn(app, project.live, 'discord')).searchParams.get('error')).toBe('user_banned');
  });

  it('a TOTP user gets the second-factor challenge at the exchange instead of tokens', async () => {
    const { app, project, clock } = await oauthApp(providers);
    const key = project.live;
    const first = (await exchange(app, key, (await browserSignIn(app, key, 'github')).searchParams.get('code')).expect(200)).body.data;
    const bearer = { 'X-API-Key': key, Authorization: `Bearer ${first.accessToken}` };
    const { secret } = (await request(app).post('/api/auth/2fa/totp/start').set(bearer).send({}).expect(200)).body.data;
    const code = hotp(fromBase32(secret), totpStepAt(clock.now()));
    await request(app).post('/api/auth/2fa/totp/confirm').set(bearer).send({ code }).expect(200);
    const again = await exchange(app, key, (await browserSignIn(app, key, 'github')).searchParams.get('code')).expect(200);
    expect(again.body).toEqual({ data: { twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] } });
  });
});
