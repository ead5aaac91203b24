import request from 'supertest';
import { admin, createProject } from './helpers';
import { ADA_GITHUB, ADA_OIDC, adminPut, APP_URL, browserSignIn, CLIENT, configureProviders, exchange, oauthApp, startProviders, toCallback, visitCallback, type Providers } from './oauth-helpers';

// The attacks on the social sign-in endpoints (initiate, callback, exchange), against the same loopback identity providers.

let providers: Providers;
beforeAll(async () => {
  providers = await startProviders();
});
afterAll(() => providers.stop());

const initiate = (app: Parameters<typeof request>[0], key: string | undefined, provider: string, body: object = {}) => {
  const req = request(app).post(`/api/auth/oauth/${provider}`);
  return (key === undefined ? req : req.set('X-API-Key', key)).send(body);
};
const INVALID_STATE = { error: 'validation_error', message: expect.stringContaining('state') };

describe('POST /api/auth/oauth/{provider}: initiate', () => {
  let world: Awaited<ReturnType<typeof oauthApp>>;
  beforeAll(async () => {
    world = await oauthApp(providers);
  });

  it.each([
    'https://evil.test',
    'https://evil.test/cb',
    'https://app.example.test.evil.test/cb',
    'https://app.example.test@evil.test/cb',
    'https://user:pass@app.example.test/cb',
    '//evil.test',
    '//app.example.test/cb',
    'javascript:alert(1)',
    'http://app.example.test/cb',
    'https://app.example.test\\@evil.test/cb',
    'https:\\\\app.example.test/cb',
    'https://app.example.test/cb#fragment',
    'https://app.example.test/cb?next=https://evil.test',
    'https://app.example.test/CB',
    'https://app.example.test/cb/../evil',
    'https://app.example.test:8443/cb',
    '',
  ])('refuses redirectUrl %j with 400 validation_error', async (redirectUrl) => {
    const { app, project } = world;
    const res = await initiate(app, project.live, 'github', { redirectUrl }).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: expect.any(String) });
  });

  it('accepts an allow-listed URL in another spelling of the same URL', async () => {
    const { app, project } = world;
    const landing = await browserSignIn(app, project.live, 'github', { redirectUrl: 'HTTPS://APP.EXAMPLE.TEST:443/cb' });
    expect(`${landing.origin}${landing.pathname}`).toBe(APP_URL);
  });

  it('answers every listed error: unknown, unconfigured or disabled provider, bad body, missing or invalid key', async () => {
    const { app, project } = await oauthApp(providers);
    await adminPut(app, `/admin/projects/${project.id}/oauth-providers/discord`, { enabled: false, clientId: 'x' }).expect(200);
    for (const [key, provider, body] of [
      [project.live, 'twitter', {}],
      [project.live, 'discord', {}],
      // Sandbox has no settings of its own: it borrows Production's, here disabled.
      [project.sandbox, 'discord', {}],
      [project.live, 'github', { redirectUrl: 42 }],
      [project.live, 'github', { state: 'x'.repeat(1025) }],
    ] as const) {
      expect((await initiate(app, key, provider, body).expect(400)).body.error).toBe('validation_error');
    }
    // ...and Production's enabled github serves Sandbox too, through the real provider's round trip.
    const landing = await browserSignIn(app, project.sandbox, 'github');
    const signedIn = await exchange(app, project.sandbox, landing.searchParams.get('code')).expect(200);
    expect(signedIn.body.data.provider).toBe('github');
    await request(app).get('/api/auth/me').set('X-API-Key', project.sandbox).set('Authorization', `Bearer ${signedIn.body.data.accessToken}`).expect(200);
    expect((await initiate(app, undefined, 'github').expect(401)).body.error).toBe('missing_api_key');
    expect((await initiate(app, 'svc_live_not-a-key', 'github').expect(401)).body.error).toBe('invalid_api_key');
    // The body is optional: none at all is fine.
    await request(app).post('/api/auth/oauth/github').set('X-API-Key', project.live).expect(200);
  });
});

describe('GET /api/auth/oauth/{provider}/callback: callback state', () => {
  it('refuses a tampered, replayed, expired, cross-provider or missing state with 400 JSON', async () => {
    const { app, project, clock } = await oauthApp(providers);
    const tampered = await toCallback(app, project.live, 'github');
    const state = tampered.searchParams.get('state')!;
    tampered.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    const replayed = await toCallback(app, project.live, 'github');
    await visitCallback(app, replayed);
    const crossProvider = await toCallback(app, project.live, 'github');
    crossProvider.pathname = '/api/auth/oauth/discord/callback';
    const missing = await toCallback(app, project.live, 'github');
    missing.searchParams.delete('state');
    const expired = await toCallback(app, project.live, 'github');
    clock.advance(10 * 60 + 1);
    for (const callback of [tampered, replayed, crossProvider, missing, expired]) {
      const { response } = await visitCallback(app, callback);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(INVALID_STATE);
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('refuses a repeated query parameter and an unknown provider; HEAD does not burn the state', async () => {
    const { app, project } = await oauthApp(providers);
    const callback = await toCallback(app, project.live, 'github');
    await request(app).head(`${callback.pathname}${callback.search}`).expect(404);
    const doubled = `${callback.pathname}${callback.search}&state=second`;
    expect((await request(app).get(doubled).expect(400)).body.error).toBe('validation_error');
    expect((await request(app).get(`/api/auth/oauth/twitter/callback${callback.search}`).expect(400)).body.error).toBe('validation_error');
    const { response } = await visitCallback(app, callback);
    expect(response.status).toBe(302);
    expect(response.text).toBe('');
  });

  it('a provider refusal redirects with a fixed error word; nothing of the provider is reflected', async () => {
    const { app, project } = await oauthApp(providers);
    providers.github.denyNext = true;
    const denied = await browserSignIn(app, project.live, 'github', { state: 'mine' });
    expect(Object.fromEntries(denied.searchParams)).toEqual({ error: 'access_denied', provider: 'github', state: 'mine' });
    const callback = await toCallback(app, project.live, 'github');
    callback.searchParams.delete('code');
    callback.searchParams.set('error', '<script>alert(1)</script>');
    const { response, landing } = await visitCallback(app, callback);
    expect(landing?.searchParams.get('error')).toBe('provider_error');
    expect(`${response.headers.location}${response.text}`).not.toMatch(/script/i);
  });

  it.each([
    ['an OpenID e-mail with a NUL', 'oidc', () => Object.assign(providers.openid, { account: { ...ADA_OIDC, email: 'ada\u0000@example.com' } })],
    ['an OpenID subject with a lone surrogate', 'google', () => Object.assign(providers.openid, { account: { ...ADA_OIDC, sub: 'oidc-\ud800' } })],
    ['a GitHub e-mail with a lone surrogate', 'github', () => Object.assign(providers.github, { account: { ...ADA_GITHUB, emails: [{ ...ADA_GITHUB.emails[0], email: 'ada\udc00@example.com' }] } })],
  ])('a provider answering text no database holds (%s) redirects with provider_error; nobody is signed up', async (_what, provider, answer) => {
    const { app, project } = await oauthApp(providers);
    answer();
    try {
      const landing = await browserSignIn(app, project.live, provider, { state: 'mine' });
      expect(Object.fromEntries(landing.searchParams)).toEqual({ error: 'provider_error', provider, state: 'mine' });
      const users = await admin(app).get(`/admin/projects/${project.id}/environments/production/users`).expect(200);
      expect(users.body.data.users).toEqual([]);
    } finally {
      providers.openid.account = { ...ADA_OIDC };
      providers.github.account = structuredClone(ADA_GITHUB);
    }
  });

  it('a code the provider refuses (wrong client secret) redirects with provider_error and logs why', async () => {
    const { app, project, logs } = await oauthApp(providers);
    await adminPut(app, `/admin/projects/${project.id}/oauth-providers/github`, { ...CLIENT, clientSecret: 'wrong', enabled: true, ...providers.github.endpoints() }).expect(200);
    expect((await browserSignIn(app, project.live, 'github')).searchParams.get('error')).toBe('provider_error');
    const line = logs.find((l) => l.includes('oauth sign-in refused'));
    expect(line).toContain('provider_error');
    expect(logs.join('\n')).not.toContain(CLIENT.clientSecret);
  });
});

describe('POST /api/auth/oauth/token: exchange', () => {
  it('refuses replayed, expired, unknown, other-project and other-environment codes with 401 invalid_token', async () => {
    const { app, project, clock } = await oauthApp(providers);
    const other = await createProject(app, { name: 'Other', redirectUrls: [APP_URL] });
    await configureProviders(app, other.id, providers, 'production');
    await configureProviders(app, project.id, providers, 'sandbox');
    const code = async () => (await browserSignIn(app, project.live, 'discord')).searchParams.get('code');
    const used = await code();
    await exchange(app, project.live, used).expect(200);
    const late = await code();
    clock.advance(61);
    const attempts: [string, string | null][] = [
      [project.live, used],
      [project.live, late],
      [project.live, 'x'.repeat(43)],
      [other.live, await code()],
      [project.sandbox, await code()],
    ];
    for (const [key, value] of attempts) {
      expect((await exchange(app, key, value).expect(401)).body).toEqual({ error: 'invalid_token', message: expect.any(String) });
    }
  });

  it('answers 400, 401 for keys, 403 user_banned and 404 user_not_found', async () => {
    const { app, project } = await oauthApp(providers);
    expect((await request(app).post('/api/auth/oauth/token').set('X-API-Key', project.live).send({}).expect(400)).body.error).toBe('validation_error');
    expect((await request(app).post('/api/auth/oauth/token').send({ code: 'x' }).expect(401)).body.error).toBe('missing_api_key');
    expect((await exchange(app, 'svc_sbx_nope', 'x').expect(401)).body.error).toBe('invalid_api_key');
    const first = await exchange(app, project.live, (await browserSignIn(app, project.live, 'github')).searchParams.get('code')).expect(200);
    const users = `/admin/projects/${project.id}/environments/production/users/${first.body.data.user.id}`;
    const forBanned = (await browserSignIn(app, project.live, 'github')).searchParams.get('code');
    const forDeleted = (await browserSignIn(app, project.live, 'github')).searchParams.get('code');
    await admin(app).post(`${users}/ban`).expect(200);
    expect((await exchange(app, project.live, forBanned).expect(403)).body.error).toBe('user_banned');
    await admin(app).post(`${users}/unban`).expect(200);
    await admin(app).delete(users).expect(200);
    expect((await exchange(app, project.live, forDeleted).expect(404)).body.error).toBe('user_not_found');
  });
});
