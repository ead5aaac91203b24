import request from 'supertest';
import { totpStepAt } from '@svc/core';
import { fromBase32, hotp } from '@svc/core/testing';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// Pre-account takeover through e-mail sign-in, end to end over HTTP on the real composition:
// someone signs up with the victim's address and their own password (and turns TOTP on); the
// victim later proves the mailbox (magic link, or a password reset). Everything the squatter held
// must stop working: the password, the refresh token, the access token (/me checks its session),
// and the squatter's TOTP must not stand between the victim and the account. Runs on SQLite and
// on PostgreSQL; the links are read from the sandbox mailbox of the admin API.

const APP = 'https://app.example.test';
const SQUATTER_PASSWORD = 'squatter knows this one';

function takeoverCases(start: () => Promise<RealApp>) {
  let real: RealApp;
  let project: { id: string; key: string };

  beforeAll(async () => {
    real = await start();
    const created = await request(real.app)
      .post('/admin/projects')
      .set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`)
      .send({ name: 'Takeover', magicLinkUrl: `${APP}/magic`, passwordResetUrl: `${APP}/reset` })
      .expect(201);
    project = { id: created.body.data.project.id, key: created.body.data.apiKeys.sandbox };
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });

  const post = (path: string, body: object) => request(real.app).post(path).set('X-API-Key', project.key).send(body);
  const me = (accessToken: string) => request(real.app).get('/api/auth/me').set('X-API-Key', project.key).set('Authorization', `Bearer ${accessToken}`);
  /** The token of the latest link mailed to `email`, from the sandbox mailbox. */
  async function latestLinkToken(email: string): Promise<string> {
    const res = await request(real.app).get(`/admin/projects/${project.id}/environments/sandbox/outbox`).query({ email }).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).expect(200);
    return new URL(res.body.data.mails[0].links[0]).searchParams.get('token')!;
  }

  /** The squatter signs up first and turns TOTP on; everything they get works until the victim shows up. */
  async function squat(email: string) {
    const squatter = (await post('/api/auth/signup', { email, password: SQUATTER_PASSWORD }).expect(201)).body.data;
    const bearer = { 'X-API-Key': project.key, Authorization: `Bearer ${squatter.accessToken}` };
    const { secret } = (await request(real.app).post('/api/auth/2fa/totp/start').set(bearer).send({}).expect(200)).body.data;
    const code = hotp(fromBase32(secret), totpStepAt(new Date()));
    await request(real.app).post('/api/auth/2fa/totp/confirm').set(bearer).send({ code }).expect(200);
    await me(squatter.accessToken).expect(200);
    return squatter as { user: { id: string }; accessToken: string; refreshToken: string };
  }

  async function expectLockedOut(email: string, squatter: { accessToken: string; refreshToken: string }) {
    expect((await post('/api/auth/login', { email, password: SQUATTER_PASSWORD })).body).toMatchObject({ error: 'invalid_credentials' });
    expect((await post('/api/auth/refresh', { refreshToken: squatter.refreshToken })).body).toMatchObject({ error: 'invalid_refresh_token' });
    const stale = await me(squatter.accessToken);
    expect([stale.status, stale.body.error]).toEqual([401, 'invalid_token']);
  }

  it('magic link: the victim gets the account, verified; the squatter password, refresh and access tokens stop working', async () => {
    const email = 'victim-link@example.test';
    const squatter = await squat(email);
    await post('/api/auth/magic-link', { email }).expect(200);
    const verified = await request(real.app)
      .get('/api/auth/magic-link/verify')
      .query({ token: await latestLinkToken(email), project: project.id })
      .expect(200);
    expect(verified.body.data).toMatchObject({ user: { id: squatter.user.id }, accessToken: expect.any(String) });
    await expectLockedOut(email, squatter);
    const victim = (await me(verified.body.data.accessToken).expect(200)).body.data.user;
    expect(victim).toMatchObject({ id: squatter.user.id, emailVerified: true });
    await post('/api/auth/refresh', { refreshToken: verified.body.data.refreshToken }).expect(200);
  });

  it('password reset: the new password signs in without the squatter TOTP; the squatter password, refresh and access tokens stop working', async () => {
    const email = 'victim-reset@example.test';
    const squatter = await squat(email);
    await post('/api/auth/password/reset', { email }).expect(200);
    await post('/api/auth/password/update', { token: await latestLinkToken(email), newPassword: 'the victim chose this' }).expect(200);
    await expectLockedOut(email, squatter);
    const signedIn = (await post('/api/auth/login', { email, password: 'the victim chose this' }).expect(200)).body.data;
    expect(signedIn.twoFactorRequired).toBeUndefined();
    expect((await me(signedIn.accessToken).expect(200)).body.data.user).toMatchObject({ id: squatter.user.id, emailVerified: true });
  });
}

describe('pre-account takeover on SQLite', () => {
  takeoverCases(() => startRealApp());
});

describeWithPostgres('pre-account takeover on PostgreSQL', (databaseUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  takeoverCases(async () => {
    const schema = await createTestSchema(databaseUrl);
    drop = schema.drop;
    return startRealApp({ DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema.schema });
  });
});
