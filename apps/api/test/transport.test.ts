import { admin, buildTestApp, createProject } from './helpers';

describe('transport rules', () => {
  it('404 not_found as JSON for unknown routes, and for known paths with another method (no 405)', async () => {
    const { http } = buildTestApp();
    const unknown = await http.get('/nope').expect(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/json/);
    expect(unknown.body).toEqual({ error: 'not_found', message: 'No such endpoint.' });
    expect((await http.get('/api/auth/signup').expect(404)).body).toEqual({ error: 'not_found', message: 'No such endpoint.' });
    expect((await http.delete('/api/auth/me').expect(404)).body.error).toBe('not_found');
  });

  it('413 payload_too_large for a 70 KB body', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http
      .post('/api/auth/signup')
      .set('X-API-Key', project.live)
      .send({ email: 'a@b.com', password: 'long enough', meta: { blob: 'x'.repeat(70 * 1024) } })
      .expect(413);
    expect(res.body).toEqual({ error: 'payload_too_large', message: 'The request body is too large (at most 64 KiB).' });
  });

  it('415 unsupported_media_type for a text/plain or form body', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const text = await http.post('/api/auth/login').set('X-API-Key', project.live).set('Content-Type', 'text/plain').send('{"email":"a@b.com","password":"x"}').expect(415);
    expect(text.body).toEqual({ error: 'unsupported_media_type', message: 'The request body must be JSON (Content-Type: application/json).' });
    await http.post('/api/auth/login').set('X-API-Key', project.live).type('form').send({ email: 'a@b.com', password: 'x' }).expect(415);
  });

  it('400 validation_error for invalid JSON', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).set('Content-Type', 'application/json').send('{"email": ').expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: 'The request body is not valid JSON.' });
  });

  it('400 validation_error for a path parameter with broken percent-encoding', async () => {
    const { http } = buildTestApp();
    const res = await http.get('/api/projects/%E0%A4%A/production/jwks.json').expect(400);
    expect(res.body).toEqual({ error: 'validation_error', message: 'The request is malformed.' });
  });

  it('500 internal_error with a generic message; the cause is logged with the request id', async () => {
    const { app, http, deps, logs } = buildTestApp();
    const project = await createProject(app);
    deps.users.findByEmail = async () => {
      throw new Error('database exploded at users_email_idx');
    };
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).set('X-Request-Id', 'req-500').send({ email: 'a@b.com', password: 'long enough' }).expect(500);
    expect(res.body).toEqual({ error: 'internal_error', message: 'An internal error occurred.' });
    expect(JSON.stringify(res.body)).not.toContain('exploded');
    const line = logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
    expect(line).toMatchObject({ requestId: 'req-500', err: { message: 'database exploded at users_email_idx' } });
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const { http } = buildTestApp();
    expect((await http.get('/healthz').set('X-Request-Id', 'abc-123').expect(200)).headers['x-request-id']).toBe('abc-123');
    const replaced = (await http.get('/healthz').set('X-Request-Id', 'bad id <script>').expect(200)).headers['x-request-id'];
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    expect((await http.get('/healthz').expect(200)).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends helmet security headers and no x-powered-by', async () => {
    const { http } = buildTestApp();
    const res = await http.get('/healthz').expect(200);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('403 origin_not_allowed when the project lists origins and the Origin differs; no Origin is fine', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app, { name: 'Origins', allowedOrigins: ['https://app.example.com'] });
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).set('Origin', 'https://app.example.com').expect(200);
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).expect(200);
    const res = await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).set('Origin', 'https://evil.example').expect(403);
    expect(res.body).toEqual({ error: 'origin_not_allowed', message: 'The request origin is not allowed for this project.' });
  });
});

describe('API keys', () => {
  it('401 invalid_api_key for a prefix other than svc_live_/svc_sbx_, or a swapped prefix', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const secret = project.live.slice('svc_live_'.length);
    for (const key of [`sk_live_${secret}`, `svc_test_${secret}`, `svc_sbx_${secret}`, secret]) {
      const res = await http.get('/api/auth/sdk/branding').set('X-API-Key', key).expect(401);
      expect(res.body).toEqual({ error: 'invalid_api_key', message: 'The API key is not valid.' });
    }
  });

  it('an empty X-API-Key header counts as missing', async () => {
    const { http } = buildTestApp();
    expect((await http.get('/api/auth/sdk/branding').set('X-API-Key', '').expect(401)).body.error).toBe('missing_api_key');
  });

  it('a revoked key stops working once the 10 s cache has passed', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).expect(200);
    const keys = await admin(app).get(`/admin/projects/${project.id}/api-keys`).expect(200);
    const live = keys.body.data.apiKeys.find((key: { environment: string }) => key.environment === 'production');
    await admin(app).delete(`/admin/projects/${project.id}/api-keys/${live.id}`).expect(200);
    clock.advance(11);
    const res = await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).expect(401);
    expect(res.body).toEqual({ error: 'invalid_api_key', message: 'The API key is not valid.' });
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.sandbox).expect(200);
  });
});
