import { ADAPTERS, CookieJar, json, PASSWORD, postJson, setCookiesOf, startProxy, startRealApi, totpCode, type RealApi, type RunningProxy } from './helpers';

// POST totp and the passkey sign-in routes, plus our account/* enrolment routes, against the real
// API's second-factor and passkey endpoints. The full WebAuthn ceremonies run in Chromium (apps/demo tests).
describe.each(ADAPTERS)('second-factor routes (%s)', (adapter) => {
  let api: RealApi;
  let proxy: RunningProxy;

  beforeAll(async () => {
    api = await startRealApi();
    const project = await api.createProject({ name: 'MFA', allowedOrigins: ['http://localhost:3001'] });
    proxy = await startProxy({ adapter, apiKey: project.live, baseUrl: api.url });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  it('enrols TOTP through account/*, then login answers the challenge without cookies and totp completes it', async () => {
    const jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'otp@example.com', password: PASSWORD }));
    const setup = await json(await postJson(proxy, '/api/session/account/totp/start', {}, { Cookie: jar.header() }));
    expect(setup.data).toEqual({ secret: expect.any(String), otpauthUrl: expect.stringMatching(/^otpauth:/) });
    const confirm = await postJson(proxy, '/api/session/account/totp/confirm', { code: totpCode(setup.data.secret, api.clock.now()) }, { Cookie: jar.header() });
    expect((await json(confirm)).data.recoveryCodes).toHaveLength(10);

    const login = await postJson(proxy, '/api/session/login', { email: 'otp@example.com', password: PASSWORD });
    const challenge = (await json(login)).data;
    expect(challenge).toEqual({ twoFactorRequired: true, twoFactorToken: expect.any(String), methods: ['totp'] });
    expect(login.headers.getSetCookie()).toEqual([]);

    const wrong = await postJson(proxy, '/api/session/totp', { twoFactorToken: challenge.twoFactorToken, code: '000000' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
    api.clock.advance(30);
    const done = await postJson(proxy, '/api/session/totp', { twoFactorToken: challenge.twoFactorToken, code: totpCode(setup.data.secret, api.clock.now()) });
    expect(done.status).toBe(200);
    expect((await json(done)).data).toEqual({ user: expect.objectContaining({ email: 'otp@example.com' }), expiresIn: 900 });
    const cookies = setCookiesOf(done);
    expect(cookies.svc_at.attributes).toEqual({ 'max-age': '900', path: '/', httponly: true, samesite: 'Lax' });
    expect(cookies.svc_rt.attributes).toEqual({ 'max-age': String(60 * 24 * 3600), path: '/', httponly: true, samesite: 'Lax' });
    const session = await fetch(`${proxy.url}/api/session/session`, { headers: { Cookie: new CookieJar().store(done).header() } });
    expect((await json(session)).data.user.email).toBe('otp@example.com');
  });

  it('passkey/login/options answers the challenge id and options; verify refuses a bad assertion without cookies', async () => {
    const options = await postJson(proxy, '/api/session/passkey/login/options', { email: 'otp@example.com' });
    const { data } = await json(options);
    expect(data).toEqual({ challengeId: expect.any(String), options: expect.objectContaining({ challenge: expect.any(String) }) });
    const verify = await postJson(proxy, '/api/session/passkey/login/verify', { challengeId: data.challengeId, email: 'otp@example.com', response: { id: 'nope' } });
    expect(verify.status).toBe(401);
    expect((await json(verify)).error).toBe('invalid_passkey');
    expect(verify.headers.getSetCookie()).toEqual([]);
  });

  it('account/* routes need a session', async () => {
    for (const path of ['account/totp/start', 'account/totp/confirm', 'account/totp/disable', 'account/passkeys/options', 'account/passkeys/verify']) {
      const res = await postJson(proxy, `/api/session/${path}`, {});
      expect([path, res.status]).toEqual([path, 401]);
    }
    const jar = new CookieJar().store(await postJson(proxy, '/api/session/signup', { email: 'keys@example.com', password: PASSWORD }));
    const res = await postJson(proxy, '/api/session/account/passkeys/options', {}, { Cookie: jar.header() });
    expect((await json(res)).data.options).toEqual(expect.objectContaining({ challenge: expect.any(String) }));
  });
});
