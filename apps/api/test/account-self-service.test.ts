import request from 'supertest';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// A user's own devices and sensitive changes, end to end on the real composition, on SQLite and
// on PostgreSQL: sessions record where they came from, the user lists and ends them, and an
// access token whose sign-in is not recent cannot add a passkey without a proof.

const PASSWORD = 'correct horse battery';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';

function accountCases(start: () => Promise<RealApp>) {
  let real: RealApp;
  let key: string;
  let strictKey: string;

  beforeAll(async () => {
    real = await start();
    const created = async (body: object) =>
      (await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send(body).expect(201)).body.data.apiKeys.production as string;
    key = await created({ name: 'Devices', allowedOrigins: ['https://app.example.test'] });
    // Every sign-in is "old" at once: what a stolen token of an older session looks like, on the real clock.
    strictKey = await created({ name: 'Strict', allowedOrigins: ['https://app.example.test'], recentSignInSeconds: 0 });
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });

  const signIn = async (apiKey: string, email: string, headers: Record<string, string>, path = '/api/auth/login') =>
    (
      await request(real.app)
        .post(path)
        .set('X-API-Key', apiKey)
        .set(headers)
        .send({ email, password: PASSWORD })
        .expect(path.endsWith('signup') ? 201 : 200)
    ).body.data;
  const as = (apiKey: string, accessToken: string) => ({ 'X-API-Key': apiKey, Authorization: `Bearer ${accessToken}` });

  it('lists the sessions with address, user agent and which is current; ends one, the others, then all', async () => {
    const email = 'devices@example.test';
    const phone = await signIn(key, email, { 'X-Svc-Client-Ip': '198.51.100.7', 'X-Svc-User-Agent': 'Svc Phone/1.0' }, '/api/auth/signup');
    const laptop = await signIn(key, email, { 'X-Svc-Client-Ip': '203.0.113.20', 'X-Svc-User-Agent': FIREFOX });
    const tablet = await signIn(key, email, { 'X-Svc-Client-Ip': '2001:db8:1:2:3:4:5:6', 'User-Agent': 'Tablet/2' });
    const listed = (await request(real.app).get('/api/auth/sessions').set(as(key, laptop.accessToken)).expect(200)).body.data.sessions;
    expect(listed).toHaveLength(3);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ address: '198.51.100.7', userAgent: 'Svc Phone/1.0', current: false }),
        expect.objectContaining({ address: '203.0.113.20', userAgent: FIREFOX, current: true }),
        expect.objectContaining({ address: '2001:db8:1:2::/64', userAgent: 'Tablet/2', current: false }),
      ]),
    );
    const phoneSession = listed.find((s: { userAgent: string }) => s.userAgent === 'Svc Phone/1.0');
    expect(phoneSession).toEqual({ id: expect.any(String), createdAt: expect.any(String), lastUsedAt: expect.any(String), address: '198.51.100.7', userAgent: 'Svc Phone/1.0', current: false });

    await request(real.app).delete(`/api/auth/sessions/${phoneSession.id}`).set(as(key, laptop.accessToken)).expect(200);
    expect((await request(real.app).get('/api/auth/me').set(as(key, phone.accessToken)).expect(401)).body.error).toBe('invalid_token');
    expect((await request(real.app).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken: phone.refreshToken }).expect(401)).body.error).toBe('invalid_refresh_token');

    const others = await request(real.app).post('/api/auth/sessions/revoke-others').set(as(key, laptop.accessToken)).expect(200);
    expect(others.body).toEqual({ data: { revoked: 1 } });
    await request(real.app).get('/api/auth/me').set(as(key, tablet.accessToken)).expect(401);
    await request(real.app).get('/api/auth/me').set(as(key, laptop.accessToken)).expect(200);

    const all = await request(real.app).post('/api/auth/logout-all').set(as(key, laptop.accessToken)).expect(200);
    expect(all.body).toEqual({ data: { revoked: 1 } });
    await request(real.app).get('/api/auth/me').set(as(key, laptop.accessToken)).expect(401);
  });

  it("cannot end another user's session, and answers unknown or malformed ids 404", async () => {
    const mine = await signIn(key, 'mine@example.test', {}, '/api/auth/signup');
    const theirs = await signIn(key, 'theirs@example.test', {}, '/api/auth/signup');
    const [their] = (await request(real.app).get('/api/auth/sessions').set(as(key, theirs.accessToken)).expect(200)).body.data.sessions;
    for (const id of [their.id, globalThis.crypto.randomUUID(), 'not-a-uuid']) {
      expect((await request(real.app).delete(`/api/auth/sessions/${id}`).set(as(key, mine.accessToken)).expect(404)).body.error).toBe('not_found');
    }
    await request(real.app).get('/api/auth/me').set(as(key, theirs.accessToken)).expect(200);
    expect((await request(real.app).get('/api/auth/sessions').set('X-API-Key', key).expect(401)).body.error).toBe('invalid_token');
  });

  it('refuses an access token whose sign-in is not recent a passkey, until the request carries the password', async () => {
    const user = await signIn(strictKey, 'stolen@example.test', {}, '/api/auth/signup');
    const options = () => request(real.app).post('/api/auth/passkeys/register/options').set(as(strictKey, user.accessToken));
    expect((await options().expect(403)).body.error).toBe('reauthentication_required');
    expect((await options().send({ currentPassword: 'a guess' }).expect(401)).body.error).toBe('invalid_credentials');
    expect((await options().send({ currentPassword: PASSWORD }).expect(200)).body.data.challenge).toEqual(expect.any(String));
  });

  it('changes the password: the current one proves it, other sessions end, this one stays', async () => {
    const email = 'changer@example.test';
    const here = await signIn(key, email, {}, '/api/auth/signup');
    const there = await signIn(key, email, {});
    const change = (body: object) => request(real.app).post('/api/auth/password/change').set(as(key, here.accessToken)).send(body);
    expect((await change({ newPassword: 'a brand new secret' }).expect(400)).body.message).toBe('currentPassword is required.');
    expect((await change({ currentPassword: PASSWORD, newPassword: 'short' }).expect(400)).body.message).toMatch(/newPassword/);
    expect((await change({ currentPassword: 'wrong one', newPassword: 'a brand new secret' }).expect(401)).body.error).toBe('invalid_credentials');
    await change({ currentPassword: PASSWORD, newPassword: 'a brand new secret' }).expect(200);
    await request(real.app).get('/api/auth/me').set(as(key, here.accessToken)).expect(200);
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken: here.refreshToken }).expect(200);
    await request(real.app).get('/api/auth/me').set(as(key, there.accessToken)).expect(401);
    const login = (password: string) => request(real.app).post('/api/auth/login').set('X-API-Key', key).send({ email, password });
    expect((await login(PASSWORD).expect(401)).body.error).toBe('invalid_credentials');
    await login('a brand new secret').expect(200);
  });

  it('deletes the account with everything of it, under the recent sign-in rule, and frees its place in the plan', async () => {
    const limited = (await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send({ name: 'One seat', userLimit: 1, recentSignInSeconds: 0 }).expect(201))
      .body.data.apiKeys.production as string;
    const user = await signIn(limited, 'leaving@example.test', {}, '/api/auth/signup');
    const other = await signIn(limited, 'leaving@example.test', {});
    expect((await request(real.app).post('/api/auth/signup').set('X-API-Key', limited).send({ email: 'next@example.test', password: PASSWORD }).expect(403)).body.error).toBe('plan_limit_reached');
    const remove = () => request(real.app).delete('/api/auth/account').set(as(limited, user.accessToken));
    expect((await remove().expect(403)).body.error).toBe('reauthentication_required');
    expect((await remove().send({ currentPassword: 'nope' }).expect(401)).body.error).toBe('invalid_credentials');
    await remove().send({ currentPassword: PASSWORD }).expect(200);
    for (const token of [user.accessToken, other.accessToken]) await request(real.app).get('/api/auth/me').set(as(limited, token)).expect(401);
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', limited).send({ refreshToken: other.refreshToken }).expect(401);
    await request(real.app).post('/api/auth/login').set('X-API-Key', limited).send({ email: 'leaving@example.test', password: PASSWORD }).expect(401);
    await signIn(limited, 'next@example.test', {}, '/api/auth/signup');
  });

  it('required e-mail verification: no sign-in until the mailed link confirms the address', async () => {
    const created = (
      await request(real.app)
        .post('/admin/projects')
        .set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`)
        .send({ name: 'Verified', emailVerification: 'required', emailVerificationUrl: 'https://app.example.test/verify' })
        .expect(201)
    ).body.data;
    const sandbox = created.apiKeys.sandbox as string;
    const email = 'confirm@example.test';
    const post = (path: string, body: object) => request(real.app).post(path).set('X-API-Key', sandbox).send(body);
    expect((await post('/api/auth/signup', { email, password: PASSWORD }).expect(403)).body.error).toBe('email_not_verified');
    expect((await post('/api/auth/login', { email, password: PASSWORD }).expect(403)).body.error).toBe('email_not_verified');
    const outbox = await request(real.app).get(`/admin/projects/${created.project.id}/environments/sandbox/outbox`).query({ email }).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).expect(200);
    expect(outbox.body.data.mails).toHaveLength(1);
    expect(outbox.body.data.mails[0]).toMatchObject({ template: 'email_verification', subject: 'Confirm your Verified e-mail address' });
    const token = new URL(outbox.body.data.mails[0].links[0]).searchParams.get('token');
    expect((await post('/api/auth/email/verify', { token }).expect(200)).body.data.user).toMatchObject({ email, emailVerified: true });
    await post('/api/auth/email/verify', { token }).expect(401);
    await post('/api/auth/login', { email, password: PASSWORD }).expect(200);
  });

  it('changes the e-mail address once the new mailbox confirms it (link from the sandbox mailbox)', async () => {
    const created = (
      await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send({ name: 'Mover', emailVerificationUrl: 'https://app.example.test/verify' }).expect(201)
    ).body.data;
    const sandbox = created.apiKeys.sandbox as string;
    const user = await signIn(sandbox, 'before@example.test', {}, '/api/auth/signup');
    await request(real.app).post('/api/auth/email/change').set(as(sandbox, user.accessToken)).send({ newEmail: 'after@example.test' }).expect(200);
    const outbox = (email: string) =>
      request(real.app).get(`/admin/projects/${created.project.id}/environments/sandbox/outbox`).query({ email }).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).expect(200);
    expect((await outbox('before@example.test')).body.data.mails[0]).toMatchObject({ template: 'email_change_notice', links: [], code: null });
    const [mail] = (await outbox('after@example.test')).body.data.mails;
    expect(mail).toMatchObject({ template: 'email_change', code: expect.stringMatching(/^\d{6}$/) });
    const confirmed = await request(real.app).post('/api/auth/email/change/confirm').set(as(sandbox, user.accessToken)).send({ code: mail.code }).expect(200);
    expect(confirmed.body.data.user).toEqual({ id: user.user.id, email: 'after@example.test', emailVerified: true });
    await request(real.app).post('/api/auth/login').set('X-API-Key', sandbox).send({ email: 'after@example.test', password: PASSWORD }).expect(200);
    await request(real.app).post('/api/auth/login').set('X-API-Key', sandbox).send({ email: 'before@example.test', password: PASSWORD }).expect(401);
  });

  it('signs in with the code of a magic-link mail (from the sandbox mailbox); five wrong codes end it', async () => {
    const created = (
      await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send({ name: 'Codes', magicLinkUrl: 'https://app.example.test/magic' }).expect(201)
    ).body.data;
    const sandbox = created.apiKeys.sandbox as string;
    const post = (path: string, body: object) => request(real.app).post(path).set('X-API-Key', sandbox).send(body);
    const codeOf = async (email: string) => {
      for (let turn = 0; turn < 100; turn += 1) {
        const res = await request(real.app).get(`/admin/projects/${created.project.id}/environments/sandbox/outbox`).query({ email }).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).expect(200);
        if (res.body.data.mails.length) return res.body.data.mails[0].code as string;
        await new Promise((resolve) => setImmediate(resolve)); // the request mails after its answer
      }
      throw new Error('no mail');
    };
    await post('/api/auth/magic-link', { email: 'coded@example.test' }).expect(200);
    const code = await codeOf('coded@example.test');
    const signedIn = await post('/api/auth/magic-link/verify-code', { email: 'coded@example.test', code }).expect(200);
    expect(signedIn.body.data).toMatchObject({ user: { email: 'coded@example.test' }, accessToken: expect.any(String) });
    await post('/api/auth/magic-link/verify-code', { email: 'coded@example.test', code }).expect(401);

    await post('/api/auth/magic-link', { email: 'guessed@example.test' }).expect(200);
    const right = await codeOf('guessed@example.test');
    for (let i = 1; i <= 5; i += 1) {
      const wrong = String((Number(right) + i) % 1e6).padStart(6, '0');
      expect((await post('/api/auth/magic-link/verify-code', { email: 'guessed@example.test', code: wrong }).expect(401)).body.error).toBe('invalid_magic_link');
    }
    await post('/api/auth/magic-link/verify-code', { email: 'guessed@example.test', code: right }).expect(401);
  });
}

describe('account self-service on SQLite', () => {
  accountCases(() => startRealApp());
});

describeWithPostgres('account self-service on PostgreSQL', (databaseUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  accountCases(async () => {
    const schema = await createTestSchema(databaseUrl);
    drop = schema.drop;
    return startRealApp({ DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema.schema });
  });
});
