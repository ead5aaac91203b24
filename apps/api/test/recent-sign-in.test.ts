import request from 'supertest';
import { totpStepAt } from '@svc/core';
import { fromBase32, hotp } from '@svc/core/testing';
import { admin, buildTestApp, createProject, signUp } from './helpers';

// The recent sign-in rule over HTTP with a FixedClock: adding or removing a passkey and turning
// TOTP on need a sign-in within the project's recentSignInSeconds, or the current password or a
// TOTP code in the same request; otherwise 403 reauthentication_required.

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';
const OPTIONS = '/api/auth/passkeys/register/options';

async function setup(settings: Record<string, unknown> = {}) {
  const { app, clock } = buildTestApp();
  const project = await createProject(app, { name: 'Acme', allowedOrigins: ['https://app.acme.test'], ...settings });
  const { accessToken } = await signUp(app, project.live, EMAIL, PASSWORD);
  const call = (method: 'post' | 'delete', path: string, bearer: string, body?: object) => {
    const req = request(app)[method](path).set('X-API-Key', project.live).set('Authorization', `Bearer ${bearer}`);
    return body ? req.send(body) : req;
  };
  const login = async () => (await request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email: EMAIL, password: PASSWORD }).expect(200)).body.data;
  return { app, clock, project, accessToken, call, login };
}

describe('recent sign-in for sensitive changes', () => {
  it('lets a fresh session add a passkey, and refuses the same session six minutes later', async () => {
    const { call, accessToken, clock } = await setup();
    await call('post', OPTIONS, accessToken).expect(200);
    clock.advance(299);
    await call('post', OPTIONS, accessToken, {}).expect(200);
    clock.advance(61);
    const res = await call('post', OPTIONS, accessToken).expect(403);
    expect(res.body).toEqual({ error: 'reauthentication_required', message: expect.stringMatching(/recent sign-in/) });
  });

  it('refuses a stolen access token of an older session: no passkey, no TOTP, no passkey removal', async () => {
    const { call, accessToken, clock } = await setup();
    clock.advance(10 * 60); // the access token (15 minutes) is still valid; its sign-in is not recent
    expect((await call('post', OPTIONS, accessToken).expect(403)).body.error).toBe('reauthentication_required');
    expect((await call('post', '/api/auth/2fa/totp/start', accessToken).expect(403)).body.error).toBe('reauthentication_required');
    const removal = await call('delete', `/api/auth/passkeys/${globalThis.crypto.randomUUID()}`, accessToken).expect(403);
    expect(removal.body.error).toBe('reauthentication_required');
    // A wrong password is told apart from none, and proves nothing.
    const wrong = await call('post', OPTIONS, accessToken, { currentPassword: 'not the password' }).expect(401);
    expect(wrong.body.error).toBe('invalid_credentials');
    await call('post', OPTIONS, accessToken).expect(403);
  });

  it('accepts the current password in the request, and the proof counts for the next few minutes', async () => {
    const { call, accessToken, clock } = await setup();
    clock.advance(10 * 60);
    await call('post', OPTIONS, accessToken, { currentPassword: PASSWORD }).expect(200);
    await call('post', '/api/auth/2fa/totp/start', accessToken).expect(200);
    await call('delete', `/api/auth/passkeys/${globalThis.crypto.randomUUID()}`, accessToken).expect(404);
    clock.advance(5 * 60);
    await call('post', OPTIONS, accessToken).expect(403);
  });

  it('a new sign-in is recent; the older session stays refused', async () => {
    const { call, accessToken, clock, login } = await setup();
    clock.advance(10 * 60);
    const fresh = await login();
    await call('post', OPTIONS, fresh.accessToken).expect(200);
    await call('post', OPTIONS, accessToken).expect(403);
  });

  it('accepts a current TOTP code instead of the password once TOTP is on (not the same code twice)', async () => {
    const { call, accessToken, clock } = await setup();
    const { secret } = (await call('post', '/api/auth/2fa/totp/start', accessToken).expect(200)).body.data;
    const code = () => hotp(fromBase32(secret), totpStepAt(clock.now()));
    await call('post', '/api/auth/2fa/totp/confirm', accessToken, { code: code() }).expect(200);
    clock.advance(10 * 60);
    expect((await call('post', OPTIONS, accessToken, { totpCode: '000000' === code() ? '111111' : '000000' }).expect(401)).body.error).toBe('invalid_totp_code');
    const current = code();
    await call('post', OPTIONS, accessToken, { totpCode: current }).expect(200);
    clock.advance(5 * 60);
    expect((await call('post', OPTIONS, accessToken, { totpCode: code() }).expect(200)).body.data.challenge).toEqual(expect.any(String));
  });

  it('without TOTP a code is no proof', async () => {
    const { call, accessToken, clock } = await setup();
    clock.advance(10 * 60);
    const res = await call('post', OPTIONS, accessToken, { totpCode: '123456' }).expect(403);
    expect(res.body.error).toBe('reauthentication_required');
  });

  it('follows the project setting; 0 asks for a proof every time', async () => {
    const { call, accessToken, app, project, clock } = await setup({ recentSignInSeconds: 0 });
    expect((await admin(app).get(`/admin/projects/${project.id}`).expect(200)).body.data.project.recentSignInSeconds).toBe(0);
    await call('post', OPTIONS, accessToken).expect(403);
    await call('post', OPTIONS, accessToken, { currentPassword: PASSWORD }).expect(200);
    await admin(app).patch(`/admin/projects/${project.id}`, { recentSignInSeconds: 3600 }).expect(200);
    clock.advance(11); // past the API-key cache, which holds the project for 10 seconds
    await call('post', OPTIONS, accessToken).expect(200);
    for (const bad of [-1, 86_401, 1.5, '300']) {
      const res = await admin(app).patch(`/admin/projects/${project.id}`, { recentSignInSeconds: bad }).expect(400);
      expect(res.body.message).toMatch(/recentSignInSeconds/);
    }
  });

  it('refuses malformed proofs with 400 and limits guesses per user', async () => {
    const { call, accessToken, clock } = await setup();
    clock.advance(10 * 60);
    expect((await call('post', OPTIONS, accessToken, { currentPassword: 12 }).expect(400)).body.error).toBe('validation_error');
    expect((await call('post', OPTIONS, accessToken, { totpCode: '' }).expect(400)).body.error).toBe('validation_error');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await call('post', OPTIONS, accessToken, { currentPassword: `guess ${i}` })).status);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });
});
