import { buildTestApp, createProject, signUp } from './helpers';

describe('POST /api/auth/refresh', () => {
  it('200: returns new tokens; the old refresh token then fails', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const first = await signUp(app, project.live);
    const res = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: first.refreshToken }).expect(200);
    expect(Object.keys(res.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken']);
    expect(res.body.data.refreshToken).not.toBe(first.refreshToken);
    expect(res.body.data.accessToken).not.toBe(first.accessToken);
    expect(res.body.data.expiresIn).toBe(900);
    expect(res.headers['cache-control']).toBe('no-store');
    const again = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: first.refreshToken }).expect(401);
    expect(again.body).toEqual({ error: 'invalid_refresh_token', message: 'The refresh token is not valid.' });
  });

  it.each([
    ['a missing token', {}, 'refreshToken is required.'],
    ['an empty token', { refreshToken: '' }, 'refreshToken must not be empty.'],
    ['a number', { refreshToken: 42 }, 'refreshToken must be a string.'],
    ['a too long token', { refreshToken: 'x'.repeat(513) }, 'refreshToken must be at most 512 characters.'],
  ])('400 validation_error for %s', async (_name, body, message) => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    expect((await http.post('/api/auth/refresh').set('X-API-Key', project.live).send(body).expect(400)).body).toEqual({ error: 'validation_error', message });
  });

  it('401 invalid_api_key, and invalid_refresh_token for an unknown token or one of another environment', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    expect((await http.post('/api/auth/refresh').set('X-API-Key', 'svc_live_x').send({ refreshToken: session.refreshToken }).expect(401)).body.error).toBe('invalid_api_key');
    expect((await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: 'unknown' }).expect(401)).body.error).toBe('invalid_refresh_token');
    expect((await http.post('/api/auth/refresh').set('X-API-Key', project.sandbox).send({ refreshToken: session.refreshToken }).expect(401)).body.error).toBe('invalid_refresh_token');
    // the failed cross-environment attempt did not consume the token
    await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(200);
  });

  it('replay: presenting A again after A -> B revokes the family; B and its access token fail', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const a = await signUp(app, project.live);
    const b = (await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: a.refreshToken }).expect(200)).body.data;
    await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${b.accessToken}`).expect(200);
    const replay = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: a.refreshToken }).expect(401);
    expect(replay.body).toEqual({ error: 'invalid_refresh_token', message: 'The refresh token is not valid.' });
    expect((await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: b.refreshToken }).expect(401)).body.error).toBe('invalid_refresh_token');
    const me = await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${b.accessToken}`).expect(401);
    expect(me.body).toEqual({ error: 'invalid_token', message: 'The token is not valid.' });
  });

  it('two concurrent refreshes with one token: exactly one succeeds', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    const send = () => http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken });
    const statuses = (await Promise.all([send(), send()])).map((res) => res.status).sort();
    expect(statuses).toEqual([200, 401]);
  });
});

describe('POST /api/auth/logout', () => {
  it('200 for a known token; afterwards /me and refresh fail', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    const res = await http.post('/api/auth/logout').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(200);
    expect(res.body).toEqual({ data: { success: true } });
    const me = await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(401);
    expect(me.body).toEqual({ error: 'invalid_token', message: 'The token is not valid.' });
    const refresh = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(401);
    expect(refresh.body.error).toBe('invalid_refresh_token');
  });

  it('200 for an unknown token and for a second logout (idempotent)', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    expect((await http.post('/api/auth/logout').set('X-API-Key', project.live).send({ refreshToken: 'never-issued' }).expect(200)).body).toEqual({ data: { success: true } });
    await http.post('/api/auth/logout').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(200);
    await http.post('/api/auth/logout').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(200);
  });

  it('400 validation_error and 401 key errors', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    expect((await http.post('/api/auth/logout').set('X-API-Key', project.live).send({}).expect(400)).body).toEqual({ error: 'validation_error', message: 'refreshToken is required.' });
    expect((await http.post('/api/auth/logout').send({ refreshToken: 'x' }).expect(401)).body.error).toBe('missing_api_key');
    expect((await http.post('/api/auth/logout').set('X-API-Key', 'svc_live_nope').send({ refreshToken: 'x' }).expect(401)).body.error).toBe('invalid_api_key');
  });

  it('logging out in the other environment does not touch the session', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    await http.post('/api/auth/logout').set('X-API-Key', project.sandbox).send({ refreshToken: session.refreshToken }).expect(200);
    await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
  });
});
