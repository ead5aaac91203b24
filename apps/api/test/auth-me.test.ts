import { admin, buildTestApp, createProject, ISO_DATE, signUp } from './helpers';

describe('GET /api/auth/me', () => {
  it('200 with exactly the UserMe shape', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live, 'ada@example.com');
    const res = await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data)).toEqual(['user']);
    expect(Object.keys(res.body.data.user).sort()).toEqual(['createdAt', 'email', 'emailVerified', 'id', 'lastLoginAt', 'meta', 'role']);
    expect(res.body.data.user).toEqual({
      id: session.user.id,
      email: 'ada@example.com',
      role: 'user',
      meta: {},
      emailVerified: false,
      createdAt: expect.stringMatching(ISO_DATE),
      lastLoginAt: null,
    });
  });

  it('HEAD answers the headers of GET without its body', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    const get = await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
    const head = await http.head('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
    expect(head.text).toBeUndefined();
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['cache-control']).toBe('no-store');
  });

  it('accepts a lower-case bearer scheme', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `bearer ${session.accessToken}`).expect(200);
  });

  it('401 missing_api_key (checked before the bearer) and invalid_api_key', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    const missing = await http.get('/api/auth/me').set('Authorization', `Bearer ${session.accessToken}`).expect(401);
    expect(missing.body).toEqual({ error: 'missing_api_key', message: 'An API key is required in the X-API-Key header.' });
    expect((await http.get('/api/auth/me').expect(401)).body.error).toBe('missing_api_key');
    const invalid = await http.get('/api/auth/me').set('X-API-Key', 'svc_live_forged').set('Authorization', `Bearer ${session.accessToken}`).expect(401);
    expect(invalid.body).toEqual({ error: 'invalid_api_key', message: 'The API key is not valid.' });
  });

  it.each([
    ['no Authorization header', undefined],
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['two tokens', 'Bearer a b'],
  ])('401 invalid_token for %s', async (_name, header) => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const req = http.get('/api/auth/me').set('X-API-Key', project.live);
    const res = await (header === undefined ? req : req.set('Authorization', header)).expect(401);
    expect(res.body).toEqual({ error: 'invalid_token', message: 'An access token is required (Authorization: Bearer <token>).' });
  });

  it('401 invalid_token for garbage, a tampered token, and tokens of the other environment or project', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const other = await createProject(app, { name: 'Other' });
    const live = await signUp(app, project.live, 'ada@example.com');
    const sandbox = await signUp(app, project.sandbox, 'ada@example.com');
    const foreign = await signUp(app, other.live, 'ada@example.com');
    const [header, payload, signature] = live.accessToken.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), role: 'admin' })).toString('base64url')}.${signature}`;
    const cases: Array<[string, string]> = [
      [project.live, 'garbage'],
      [project.live, 'a.b.c'],
      [project.live, tampered],
      [project.live, sandbox.accessToken],
      [project.sandbox, live.accessToken],
      [project.live, foreign.accessToken],
      [other.live, live.accessToken],
    ];
    for (const [key, token] of cases) {
      const res = await http.get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${token}`).expect(401);
      expect(res.body).toEqual({ error: 'invalid_token', message: 'The token is not valid.' });
    }
  });

  it('401 invalid_token once the access token expired', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    clock.advance(900 + 61);
    expect((await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(401)).body.error).toBe('invalid_token');
  });

  it('403 user_banned for a banned user with a live token', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${session.user.id}/ban`).expect(200);
    const res = await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(403);
    expect(res.body).toEqual({ error: 'user_banned', message: 'This user is banned.' });
  });
});
