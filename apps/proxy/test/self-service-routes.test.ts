import { ADAPTERS, CookieJar, json, PASSWORD, postJson, startProxy, startRealApi, type RealApi, type RunningProxy } from './helpers';

// The user's own account behind the session proxy, against the real API: devices with the
// browser's user agent, sign out everywhere, password change, recent sign-in, account deletion,
// e-mail verification and the magic-link code (codes read from the sandbox mailbox).
describe.each(ADAPTERS)('self-service routes (%s)', (adapter) => {
  let api: RealApi;
  let proxy: RunningProxy;
  let projectId: string;
  let sandboxKey: string;

  beforeAll(async () => {
    api = await startRealApi();
    const project = await api.createProject({
      name: 'Self service',
      allowedOrigins: ['http://localhost:3001'],
      magicLinkUrl: 'http://localhost:3001/magic',
      emailVerification: 'optional',
      emailVerificationUrl: 'http://localhost:3001/verify',
    });
    projectId = project.id;
    sandboxKey = project.sandbox;
    proxy = await startProxy({ adapter, apiKey: project.sandbox, baseUrl: api.url });
  });
  afterAll(async () => {
    await proxy.close();
    await api.close();
  });

  const get = (path: string, jar: CookieJar) => fetch(`${proxy.url}/api/session/${path}`, { headers: { Cookie: jar.header() } });
  const list = async (jar: CookieJar) => (await json(await post('account/sessions', {}, jar))).data.sessions;
  const post = (path: string, body: object, jar?: CookieJar, headers: Record<string, string> = {}) =>
    postJson(proxy, `/api/session/${path}`, body, { ...(jar ? { Cookie: jar.header() } : {}), ...headers });

  it("lists the browser's sessions with its user agent, and signs out everywhere", async () => {
    const laptop = new CookieJar().store(await post('signup', { email: 'devices@example.com', password: PASSWORD }, undefined, { 'User-Agent': 'Laptop/1.0' }));
    const phone = new CookieJar().store(await post('login', { email: 'devices@example.com', password: PASSWORD }, undefined, { 'User-Agent': 'Phone/2.0' }));
    const sessions = await list(laptop);
    expect(sessions.map((s: { userAgent: string; current: boolean }) => [s.userAgent, s.current]).sort()).toEqual([
      ['Laptop/1.0', true],
      ['Phone/2.0', false],
    ]);
    const phoneId = sessions.find((s: { current: boolean }) => !s.current).id;
    expect((await post('account/sessions/revoke', { id: phoneId }, laptop)).status).toBe(200);
    expect((await get('session', phone)).status).toBe(401);
    const all = await post('account/logout-all', {}, laptop);
    expect((await json(all)).data).toEqual({ revoked: 1 });
    expect(all.headers.getSetCookie().some((c) => /^svc_at=;/.test(c))).toBe(true);
    expect((await get('session', laptop)).status).toBe(401);
  });

  it('forwards the proof a sensitive change needs, changes the password and deletes the account', async () => {
    const jar = new CookieJar().store(await post('signup', { email: 'proof@example.com', password: PASSWORD }));
    api.clock.advance(6 * 60);
    await post('refresh', {}, jar).then((res) => jar.store(res)); // a fresh access token, an old sign-in
    expect((await json(await post('account/passkeys/options', {}, jar))).error).toBe('reauthentication_required');
    expect((await post('account/passkeys/options', { currentPassword: PASSWORD }, jar)).status).toBe(200);
    expect((await post('account/password', { currentPassword: PASSWORD, newPassword: 'a new passphrase' }, jar)).status).toBe(200);
    expect((await post('login', { email: 'proof@example.com', password: 'a new passphrase' })).status).toBe(200);
    const deleted = await post('account/delete', {}, jar);
    expect(deleted.status).toBe(200);
    expect((await post('login', { email: 'proof@example.com', password: 'a new passphrase' })).status).toBe(401);
  });

  it('confirms a sign-up with the mailed code, and signs in with a magic-link code', async () => {
    api.clock.advance(1); // the mails sort by time: the magic link's comes after the verification's
    await post('signup', { email: 'verify@example.com', password: PASSWORD });
    const code = await api.lastSandboxCode(projectId, 'verify@example.com');
    const verified = await post('email/verify', { email: 'verify@example.com', code });
    expect((await json(verified)).data.user).toMatchObject({ email: 'verify@example.com', emailVerified: true });
    api.clock.advance(1);
    // Mailed here by the API itself (the proxy's own magic-link route: mail-routes.test.ts).
    await fetch(`${api.url}/api/auth/magic-link`, { method: 'POST', headers: { 'X-API-Key': sandboxKey, 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'verify@example.com' }) });
    const signIn = await post('magic-link/code', { email: 'verify@example.com', code: await magicLinkCode('verify@example.com') });
    expect(signIn.status).toBe(200);
    expect((await json(await get('session', new CookieJar().store(signIn)))).data.user.email).toBe('verify@example.com');
  });

  /** The code of the magic-link mail to `email`, once the request's after-answer work queued it. */
  async function magicLinkCode(email: string): Promise<string> {
    for (let turn = 0; turn < 100; turn += 1) {
      const { body } = await api.admin('GET', `/admin/projects/${projectId}/environments/sandbox/outbox?email=${encodeURIComponent(email)}`);
      const mail = body.data.mails.find((m: { template: string }) => m.template === 'magic_link');
      if (mail) return mail.code;
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error(`no magic-link mail to ${email}`);
  }

  it('account routes need a session', async () => {
    for (const path of ['account/sessions', 'account/passkeys', 'account/sessions/revoke', 'account/logout-all', 'account/password', 'account/email', 'account/delete']) {
      expect([path, (await post(path, {})).status]).toEqual([path, 401]);
    }
    // For GET the contract's table has only `session`.
    expect((await fetch(`${proxy.url}/api/session/account/sessions`)).status).toBe(404);
  });
});
