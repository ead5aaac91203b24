import request from 'supertest';
import type { Express } from 'express';
import { deliverOutbox } from '@svc/core';
import { admin, createProject, signUp } from './helpers';
import { buildEmailApp, createMailProject, requestMagicLink, requestReset, RESET_URL, tokenOf, verify } from './email-helpers';

const SUCCESS = { data: { success: true } };
const OLD = 'correct horse battery';
const NEW = 'new staple battery';

const update = (app: Express, key: string, body: object) => request(app).post('/api/auth/password/update').set('X-API-Key', key).send(body);
const login = (app: Express, key: string, email: string, password: string) => request(app).post('/api/auth/login').set('X-API-Key', key).send({ email, password });

describe('POST /api/auth/password/reset', () => {
  it('answers success and queues a mail linking to passwordResetUrl; nothing is sent inline', async () => {
    const { app, deliver, mailer, linkTo } = buildEmailApp();
    const project = await createMailProject(app);
    await signUp(app, project.live, 'ada@example.com', OLD);
    expect((await requestReset(app, project.live, 'ADA@example.com').expect(200)).body).toEqual(SUCCESS);
    expect(mailer.attempts).toHaveLength(0);
    await deliver();
    const link = linkTo('ada@example.com');
    expect(`${link.origin}${link.pathname}`).toBe(RESET_URL);
    expect(link.searchParams.get('project')).toBe(project.id);
    expect(tokenOf(link)).toMatch(/^pr_live_[A-Za-z0-9_-]{43}$/);
    expect(mailer.sent[0].subject).toBe('Reset your Mail project password');
    expect(mailer.sent[0].text).toContain('expires in 60 minutes');
  });

  it('answers the same for unknown and banned addresses, and sends them nothing', async () => {
    const { app, deliver, mailer } = buildEmailApp();
    const project = await createMailProject(app);
    const { user } = await signUp(app, project.live, 'banned@example.com', OLD);
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${user.id}/ban`).expect(200);
    for (const email of ['nobody@example.com', 'banned@example.com']) {
      expect((await requestReset(app, project.live, email).expect(200)).body).toEqual(SUCCESS);
    }
    await deliver();
    expect(mailer.attempts).toHaveLength(0);
  });

  it('answers at once even while the mail transport hangs (requests never wait for it)', async () => {
    const { app, deps } = buildEmailApp();
    const project = await createMailProject(app);
    await signUp(app, project.live, 'ada@example.com', OLD);
    await requestReset(app, project.live, 'ada@example.com').expect(200);
    // A worker round is stuck on a transport that never answers...
    void deliverOutbox({ ...deps, mailer: { send: () => new Promise<never>(() => undefined) } });
    // ... and requests for known and unknown addresses still answer at normal speed.
    const started = Date.now();
    await requestReset(app, project.live, 'ada@example.com').expect(200);
    await requestReset(app, project.live, 'unknown@example.com').expect(200);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await deps.outbox.stats()).toMatchObject({ sending: 1, pending: 1 });
  });

  it('links to the configured URL whatever Host or X-Forwarded-Host say, even behind a trusted proxy', async () => {
    const { app, deliver, linkTo } = buildEmailApp({ config: { trustProxy: true } });
    const project = await createMailProject(app);
    await signUp(app, project.live, 'ada@example.com', OLD);
    await requestReset(app, project.live, 'ada@example.com')
      .set('Host', 'evil.example')
      .set('X-Forwarded-Host', 'attacker.example')
      .set('X-Forwarded-Proto', 'http')
      .set('Origin', 'https://evil.example')
      .expect(200);
    await deliver();
    const link = linkTo('ada@example.com');
    expect(link.href.startsWith(`${RESET_URL}?token=pr_live_`)).toBe(true);
    expect(link.href).not.toMatch(/evil|attacker/);
  });

  it('400 validation_error for a bad body or a project without passwordResetUrl; 401 for keys; 429 after 5 an hour', async () => {
    const { app } = buildEmailApp();
    const project = await createMailProject(app);
    for (const body of [{}, { email: 'nope' }, { email: ['a@example.com'] }]) {
      expect((await request(app).post('/api/auth/password/reset').set('X-API-Key', project.live).send(body).expect(400)).body.error).toBe('validation_error');
    }
    const bare = await createProject(app);
    expect((await requestReset(app, bare.live, 'a@example.com').expect(400)).body.message).toContain('passwordResetUrl');
    expect((await request(app).post('/api/auth/password/reset').send({ email: 'a@example.com' }).expect(401)).body.error).toBe('missing_api_key');
    expect((await requestReset(app, 'svc_sbx_unknown', 'a@example.com').expect(401)).body.error).toBe('invalid_api_key');
    for (let i = 0; i < 5; i += 1) await requestReset(app, project.live, 'limit@example.com').expect(200);
    const limited = await requestReset(app, project.live, 'limit@example.com').expect(429);
    expect(limited.body.error).toBe('rate_limited');
    await requestReset(app, project.live, 'other@example.com').expect(200);
  });
});

describe('POST /api/auth/password/update', () => {
  async function resetLink(email = 'ada@example.com') {
    const built = buildEmailApp();
    const project = await createMailProject(built.app);
    const session = await signUp(built.app, project.live, email, OLD);
    await requestReset(built.app, project.live, email).expect(200);
    await built.deliver();
    return { ...built, project, session, token: tokenOf(built.linkTo(email)) };
  }

  it('sets the new password, ends every session and open link, and keeps the rest', async () => {
    const { app, project, session, token, deliver, linkTo } = await resetLink();
    const loggedIn = (await login(app, project.live, 'ada@example.com', OLD).expect(200)).body.data;
    await requestMagicLink(app, project.live, { email: 'ada@example.com' }).expect(200);
    await deliver();
    const magic = linkTo('ada@example.com');
    expect((await update(app, project.live, { token, newPassword: NEW }).expect(200)).body).toEqual(SUCCESS);

    expect((await login(app, project.live, 'ada@example.com', OLD).expect(401)).body.error).toBe('invalid_credentials');
    await login(app, project.live, 'ada@example.com', NEW).expect(200);
    for (const refreshToken of [session.refreshToken, loggedIn.refreshToken]) {
      expect((await request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken }).expect(401)).body.error).toBe('invalid_refresh_token');
    }
    await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(401);
    expect((await verify(app, magic).expect(401)).body.error).toBe('invalid_magic_link');
    expect((await update(app, project.live, { token, newPassword: 'third password' }).expect(401)).body.error).toBe('invalid_reset_token');
  });

  it('401 invalid_reset_token for a wrong, expired, superseded, other-environment token or a deleted user', async () => {
    const { app, project, token, clock, deliver, linkTo, deps } = await resetLink();
    const invalid = async (key: string, t: string) =>
      expect((await update(app, key, { token: t, newPassword: NEW }).expect(401)).body).toEqual({ error: 'invalid_reset_token', message: 'The password reset token is not valid.' });
    await invalid(project.live, `pr_live_${'A'.repeat(43)}`);
    await invalid(project.live, token.replace('pr_', 'ml_'));
    await invalid(project.sandbox, token);
    const other = await createMailProject(app);
    await invalid(other.live, token);
    await requestReset(app, project.live, 'ada@example.com').expect(200);
    await deliver();
    await invalid(project.live, token); // superseded by the newer mail
    const newer = tokenOf(linkTo('ada@example.com'));
    clock.advance(60 * 60);
    await invalid(project.live, newer);

    await requestReset(app, project.live, 'ada@example.com').expect(200);
    await deliver();
    const user = (await deps.users.findByEmail({ projectId: project.id, environment: 'production' }, 'ada@example.com'))!;
    await admin(app).delete(`/admin/projects/${project.id}/environments/production/users/${user.id}`).expect(200);
    await invalid(project.live, tokenOf(linkTo('ada@example.com')));
  });

  it('400 validation_error for a short password or a missing token; 401 for keys', async () => {
    const { app, project, token } = await resetLink();
    for (const body of [{ token, newPassword: 'short77' }, { newPassword: NEW }, { token: '', newPassword: NEW }, { token, newPassword: 'x'.repeat(1025) }]) {
      expect((await update(app, project.live, body).expect(400)).body.error).toBe('validation_error');
    }
    expect((await request(app).post('/api/auth/password/update').send({ token, newPassword: NEW }).expect(401)).body.error).toBe('missing_api_key');
    expect((await update(app, 'svc_live_unknown', { token, newPassword: NEW }).expect(401)).body.error).toBe('invalid_api_key');
    await update(app, project.live, { token, newPassword: NEW }).expect(200); // the failures above did not use it up
  });

  it('a passwordless (magic-link) user can set a first password', async () => {
    const { app, deliver, linkTo } = buildEmailApp();
    const project = await createMailProject(app);
    await requestMagicLink(app, project.live, { email: 'pl@example.com' }).expect(200);
    await requestReset(app, project.live, 'pl@example.com').expect(200);
    await deliver();
    await update(app, project.live, { token: tokenOf(linkTo('pl@example.com')), newPassword: NEW }).expect(200);
    await login(app, project.live, 'pl@example.com', NEW).expect(200);
  });

  it('is limited per address', async () => {
    const { app, project } = await resetLink();
    for (let i = 0; i < 10; i += 1) await update(app, project.live, { token: `pr_live_${'C'.repeat(43)}`, newPassword: NEW }).expect(401);
    expect((await update(app, project.live, { token: 'x', newPassword: NEW }).expect(429)).body.error).toBe('rate_limited');
  });
});
