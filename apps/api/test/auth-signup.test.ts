import { admin, buildTestApp, createProject, ISO_DATE, signUp } from './helpers';

describe('POST /api/auth/signup', () => {
  it('201: creates the user with merged meta and returns the token bundle', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app, { name: 'Meta', defaultMeta: { plan: 'trial', theme: 'dark' } });
    const res = await http
      .post('/api/auth/signup')
      .set('X-API-Key', project.live)
      .send({ email: '  Ada@Example.COM ', password: 'correct horse battery', meta: { theme: 'light' }, extra: 'dropped' })
      .expect(201);
    const { user, accessToken, refreshToken, expiresIn } = res.body.data;
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(Object.keys(res.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken', 'user']);
    expect(Object.keys(user).sort()).toEqual(['createdAt', 'email', 'id', 'meta', 'role']);
    expect(user).toEqual({ id: expect.any(String), email: 'ada@example.com', role: 'user', meta: { plan: 'trial', theme: 'light' }, createdAt: expect.stringMatching(ISO_DATE) });
    expect(accessToken.split('.')).toHaveLength(3);
    expect(typeof refreshToken).toBe('string');
    expect(expiresIn).toBe(900);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it.each([
    ['a bad e-mail', { email: 'not-an-email', password: 'long enough' }, 'email must be a valid e-mail address.'],
    ['a missing e-mail', { password: 'long enough' }, 'email is required.'],
    ['an e-mail with a line break', { email: 'a@b.com\r\nBcc: x@y.com', password: 'long enough' }, 'email must not contain line breaks.'],
    ['a too long e-mail', { email: `${'a'.repeat(250)}@b.com`, password: 'long enough' }, 'email must be at most 254 characters.'],
    ['a short password', { email: 'a@b.com', password: 'short' }, 'password must be at least 8 characters long.'],
    ['a non-string password', { email: 'a@b.com', password: 12345678 }, 'password must be a string.'],
    ['a too long password', { email: 'a@b.com', password: 'x'.repeat(1025) }, 'password must be at most 1024 characters.'],
    ['meta as an array', { email: 'a@b.com', password: 'long enough', meta: [1, 2] }, 'meta must be a JSON object.'],
    ['meta as a string', { email: 'a@b.com', password: 'long enough', meta: 'x' }, 'meta must be a JSON object.'],
    ['meta nested 6 levels', { email: 'a@b.com', password: 'long enough', meta: { a: { b: { c: { d: { e: {} } } } } } }, 'meta is nested deeper than 5 levels (at meta.a.b.c.d.e).'],
    ['"constructor" in meta', { email: 'a@b.com', password: 'long enough', meta: { x: { constructor: { a: 1 } } } }, 'meta.x.constructor is not an allowed key.'],
  ])('400 validation_error for %s', async (_name, body, message) => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send(body).expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message });
  });

  it('400 validation_error for a "__proto__" key in meta (sent as raw JSON)', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http
      .post('/api/auth/signup')
      .set('X-API-Key', project.live)
      .set('Content-Type', 'application/json')
      .send('{"email":"a@b.com","password":"long enough","meta":{"__proto__":{"isAdmin":true}}}')
      .expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: 'meta.__proto__ is not an allowed key.' });
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('accepts meta nested exactly 5 levels', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const meta = { a: { b: { c: { d: { e: 1 } } } } };
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'a@b.com', password: 'long enough', meta }).expect(201);
    expect(res.body.data.user.meta).toEqual(meta);
  });

  it('400 when the body is not a JSON object', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    for (const body of ['[1,2]', 'null', '"text"']) {
      const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).set('Content-Type', 'application/json').send(body).expect(400);
      expect(res.body.error).toBe('validation_error');
    }
    const empty = await http.post('/api/auth/signup').set('X-API-Key', project.live).expect(400);
    expect(empty.body).toEqual({ error: 'validation_error', message: 'The request body must be a JSON object.' });
  });

  it('401 missing_api_key and invalid_api_key', async () => {
    const { app, http } = buildTestApp();
    await createProject(app);
    const body = { email: 'a@b.com', password: 'long enough' };
    expect((await http.post('/api/auth/signup').send(body).expect(401)).body).toEqual({
      error: 'missing_api_key',
      message: 'An API key is required in the X-API-Key header.',
    });
    expect((await http.post('/api/auth/signup').set('X-API-Key', 'svc_live_unknown').send(body).expect(401)).body).toEqual({
      error: 'invalid_api_key',
      message: 'The API key is not valid.',
    });
  });

  it('403 user_banned when a banned user signs up again', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const { user } = await signUp(app, project.live, 'ada@example.com');
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${user.id}/ban`).expect(200);
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'ADA@example.com', password: 'another password' }).expect(403);
    expect(res.body).toEqual({ error: 'user_banned', message: 'This user is banned.' });
  });

  it('403 plan_limit_reached on production at the project limit; sandbox is unaffected', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'one@example.com');
    await admin(app).patch(`/admin/projects/${project.id}`, { userLimit: 1 }).expect(200);
    clock.advance(11); // resolved keys (and their project) are cached for 10 s (docs/decisions.md#contract-clarifications)
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'two@example.com', password: 'long enough' }).expect(403);
    expect(res.body).toEqual({ error: 'plan_limit_reached', message: "The project's plan user limit has been reached." });
    await signUp(app, project.sandbox, 'one@example.com');
    await signUp(app, project.sandbox, 'two@example.com');
  });

  it('409 user_already_exists (e-mail compared after normalising)', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com');
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'Ada@Example.com', password: 'long enough' }).expect(409);
    expect(res.body).toEqual({ error: 'user_already_exists', message: 'A user with this email already exists.' });
  });

  it('keeps production and sandbox users apart', async () => {
    const { app } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com');
    await signUp(app, project.sandbox, 'ada@example.com');
  });
});
