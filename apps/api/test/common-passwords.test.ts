import request from 'supertest';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// The most common passwords over HTTP on the real composition, with the list shipped in
// adapters-crypto: accepted by default (the contract asks only for 8 characters), refused with
// 400 validation_error at sign-up and at password update once a project turns the check on.

const APP = 'https://app.example.test';

describe('common passwords over HTTP', () => {
  let real: RealApp;
  beforeAll(async () => {
    real = await startRealApp();
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });

  async function project(body: object) {
    const res = await request(real.app)
      .post('/admin/projects')
      .set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`)
      .send({ name: 'Passwords', ...body })
      .expect(201);
    return { id: res.body.data.project.id as string, key: res.body.data.apiKeys.sandbox as string };
  }
  const signUp = (key: string, email: string, password: string) => request(real.app).post('/api/auth/signup').set('X-API-Key', key).send({ email, password });

  it('are accepted by default', async () => {
    const { key } = await project({});
    await signUp(key, 'one@example.test', 'password').expect(201);
    await signUp(key, 'two@example.test', '12345678').expect(201);
  });

  it('are refused at sign-up with rejectCommonPasswords, in any case; the message never carries the password', async () => {
    const { key } = await project({ rejectCommonPasswords: true });
    for (const password of ['password', '12345678', 'PassWord1', 'QWERTYUIOP', 'iloveyou']) {
      const res = await signUp(key, 'ada@example.test', password).expect(400);
      expect(res.body).toEqual({ error: 'validation_error', message: 'password is one of the most common passwords; choose a less predictable one.' });
    }
    await signUp(key, 'ada@example.test', 'violet kettle 1987 orbit').expect(201);
  });

  it('are refused at password update, and the link still sets a better one', async () => {
    const { id, key } = await project({ rejectCommonPasswords: true, passwordResetUrl: `${APP}/reset` });
    await signUp(key, 'bob@example.test', 'violet kettle 1987 orbit').expect(201);
    await request(real.app).post('/api/auth/password/reset').set('X-API-Key', key).send({ email: 'bob@example.test' }).expect(200);
    const outbox = await request(real.app).get(`/admin/projects/${id}/environments/sandbox/outbox`).query({ email: 'bob@example.test' }).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).expect(200);
    const token = new URL(outbox.body.data.mails[0].links[0]).searchParams.get('token');
    const update = (newPassword: string) => request(real.app).post('/api/auth/password/update').set('X-API-Key', key).send({ token, newPassword });
    expect((await update('sunshine1').expect(400)).body).toEqual({ error: 'validation_error', message: 'newPassword is one of the most common passwords; choose a less predictable one.' });
    await update('a quieter passphrase 42').expect(200);
  });
});
