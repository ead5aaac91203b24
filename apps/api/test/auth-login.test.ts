import { admin, buildTestApp, createProject, ISO_DATE, signUp } from './helpers';

const PASSWORD = 'correct horse battery';

describe('POST /api/auth/login', () => {
  it('200: returns UserLogin with the new lastLoginAt and a token bundle', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app, { name: 'Login', accessTokenTtlSeconds: 600 });
    await signUp(app, project.live, 'ada@example.com', PASSWORD);
    clock.advance(60);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: ' ADA@example.com', password: PASSWORD }).expect(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(Object.keys(res.body.data.user).sort()).toEqual(['email', 'id', 'lastLoginAt', 'meta', 'role']);
    expect(res.body.data.user).toMatchObject({ email: 'ada@example.com', role: 'user', meta: {}, lastLoginAt: clock.now().toISOString() });
    expect(res.body.data.user.lastLoginAt).toMatch(ISO_DATE);
    expect(res.body.data.expiresIn).toBe(600);
  });

  it.each([
    ['a bad e-mail', { email: 'nope', password: PASSWORD }, 'email must be a valid e-mail address.'],
    ['a missing password', { email: 'a@b.com' }, 'password is required.'],
    ['an empty password', { email: 'a@b.com', password: '' }, 'password must not be empty.'],
    ['a non-string password', { email: 'a@b.com', password: ['x'] }, 'password must be a string.'],
  ])('400 validation_error for %s', async (_name, body, message) => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).send(body).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message });
  });

  it('401 invalid_credentials with the same body for an unknown e-mail and a wrong password', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com', PASSWORD);
    const unknown = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'who@example.com', password: PASSWORD }).expect(401);
    const wrong = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: 'wrong password' }).expect(401);
    expect(unknown.body).toEqual({ error: 'invalid_credentials', message: 'Invalid email or password.' });
    expect(wrong.body).toEqual(unknown.body);
  });

  it('401 invalid_credentials in the other environment (separate users)', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com', PASSWORD);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.sandbox).send({ email: 'ada@example.com', password: PASSWORD }).expect(401);
    expect(res.body.error).toBe('invalid_credentials');
  });

  it('401 invalid_api_key and missing_api_key', async () => {
    const { app, http } = buildTestApp();
    await createProject(app);
    const body = { email: 'a@b.com', password: PASSWORD };
    expect((await http.post('/api/auth/login').set('X-API-Key', 'svc_sbx_nope').send(body).expect(401)).body).toEqual({ error: 'invalid_api_key', message: 'The API key is not valid.' });
    expect((await http.post('/api/auth/login').send(body).expect(401)).body.error).toBe('missing_api_key');
  });

  it('403 user_banned for a banned user with the right password (a wrong one stays 401)', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const { user } = await signUp(app, project.live, 'ada@example.com', PASSWORD);
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${user.id}/ban`).expect(200);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: PASSWORD }).expect(403);
    expect(res.body).toEqual({ error: 'user_banned', message: 'This user is banned.' });
    await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: 'wrong password' }).expect(401);
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${user.id}/unban`).expect(200);
    await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: PASSWORD }).expect(200);
  });

  it('never logs the password or the e-mail', async () => {
    const { app, http, logs } = buildTestApp();
    const project = await createProject(app);
    await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'secret.person@example.com', password: 'hunter2-hunter2' }).expect(401);
    const text = logs.join('');
    expect(text).toContain('"route":"/api/auth/login"');
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('secret.person');
    expect(text).not.toContain(project.live);
  });
});
