import request from 'supertest';
import { admin, buildTestApp, createProject, signUp } from './helpers';

// The HTTP edges of the passkey endpoints (the ceremonies themselves: passkeys-browser.test.ts).

async function setup(body: Record<string, unknown> = { name: 'Acme', allowedOrigins: ['https://app.acme.test'] }) {
  const { app } = buildTestApp();
  const project = await createProject(app, body);
  const { accessToken } = await signUp(app, project.live);
  const post = (path: string, payload: object, bearer?: string) => {
    const req = request(app).post(path).set('X-API-Key', project.live);
    return (bearer ? req.set('Authorization', `Bearer ${bearer}`) : req).send(payload);
  };
  return { app, project, accessToken, post };
}

describe('passkey endpoints over HTTP', () => {
  it('derive the relying party from allowedOrigins and answer creation options', async () => {
    const { post, accessToken } = await setup();
    const options = (await post('/api/auth/passkeys/register/options', {}, accessToken).expect(200)).body.data;
    expect(options).toMatchObject({ challenge: expect.any(String), rp: { id: 'app.acme.test', name: 'Acme' } });
    const login = (await post('/api/auth/passkeys/login/options', { email: 'ada@example.com' }).expect(200)).body.data;
    expect(login).toEqual({ challengeId: expect.any(String), options: expect.objectContaining({ rpId: 'app.acme.test' }) });
  });

  it("need a bearer token for the user's own passkeys", async () => {
    const { post, app, project } = await setup();
    expect((await post('/api/auth/passkeys/register/options', {}).expect(401)).body.error).toBe('invalid_token');
    expect((await request(app).get('/api/auth/passkeys').set('X-API-Key', project.live).expect(401)).body.error).toBe('invalid_token');
    const missing = await request(app).get('/api/auth/passkeys').expect(401);
    expect(missing.body.error).toBe('missing_api_key');
  });

  it('validate bodies and ids', async () => {
    const { post, accessToken, app, project } = await setup();
    expect((await post('/api/auth/passkeys/register/verify', { name: 'x' }, accessToken).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/passkeys/register/verify', { response: 'x' }, accessToken).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/passkeys/register/verify', { response: {} }, accessToken).expect(401)).body.error).toBe('invalid_passkey');
    expect((await post('/api/auth/passkeys/login/verify', { email: 'a@b.test', response: {} }).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/passkeys/login/verify', { challengeId: 'nope', email: 'a@b.test', response: {} }).expect(401)).body.error).toBe('invalid_passkey');
    const del = await request(app).delete('/api/auth/passkeys/not-a-uuid').set('X-API-Key', project.live).set('Authorization', `Bearer ${accessToken}`);
    expect(del.status).toBe(404);
  });

  it('answer 400 when the project names no relying party', async () => {
    const { post, accessToken } = await setup({ name: 'Bare' });
    expect((await post('/api/auth/passkeys/register/options', {}, accessToken).expect(400)).body.error).toBe('validation_error');
    expect((await post('/api/auth/passkeys/login/options', { email: 'a@b.test' }).expect(400)).body.error).toBe('validation_error');
  });
});

describe('project webauthn settings (admin API)', () => {
  it('sets, shows and clears the relying party', async () => {
    const { app, project } = await setup();
    const webauthn = { rpId: 'acme.test', rpName: 'Acme Inc', origins: ['https://acme.test', 'https://app.acme.test'] };
    const set = await admin(app).patch(`/admin/projects/${project.id}`, { webauthn }).expect(200);
    expect(set.body.data.project.webauthn).toEqual(webauthn);
    expect((await admin(app).get(`/admin/projects/${project.id}`).expect(200)).body.data.project.webauthn).toEqual(webauthn);
    const cleared = await admin(app).patch(`/admin/projects/${project.id}`, { webauthn: null }).expect(200);
    expect(cleared.body.data.project.webauthn).toBeNull();
  });

  it.each([
    [{ rpId: 'acme.test', rpName: 'Acme', origins: ['https://evil.test'] }, /rpId or one of its subdomains/],
    [{ rpId: 'https://acme.test', rpName: 'Acme', origins: ['https://acme.test'] }, /rpId/],
    [{ rpId: 'acme.test', rpName: 'Acme', origins: [] }, /origins/],
    [{ rpId: 'acme.test', rpName: 'Acme', origins: ['https://acme.test/path'] }, /origin/],
    [{ rpId: 'acme.test', origins: ['https://acme.test'] }, /rpName/],
    [{ rpId: 'acme.test', rpName: 'Acme', origins: ['https://acme.test'], extra: 1 }, /extra/],
    ['acme.test', /object/],
  ])('refuses %j', async (webauthn, message) => {
    const { app, project } = await setup();
    const res = await admin(app).patch(`/admin/projects/${project.id}`, { webauthn }).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: expect.stringMatching(message) });
  });
});
