import { admin, buildTestApp, createProject } from './helpers';

describe('GET /api/auth/sdk/branding', () => {
  it('200 poweredByService true on FREE, false on PRO', async () => {
    const { app, http } = buildTestApp();
    const free = await createProject(app, { name: 'Free' });
    const pro = await createProject(app, { name: 'Pro', plan: 'PRO' });
    expect((await http.get('/api/auth/sdk/branding').set('X-API-Key', free.live).expect(200)).body).toEqual({ data: { poweredByService: true } });
    expect((await http.get('/api/auth/sdk/branding').set('X-API-Key', pro.sandbox).expect(200)).body).toEqual({ data: { poweredByService: false } });
  });

  it('401 missing_api_key and invalid_api_key', async () => {
    const { http } = buildTestApp();
    expect((await http.get('/api/auth/sdk/branding').expect(401)).body).toEqual({ error: 'missing_api_key', message: 'An API key is required in the X-API-Key header.' });
    expect((await http.get('/api/auth/sdk/branding').set('X-API-Key', 'svc_sbx_x').expect(401)).body).toEqual({ error: 'invalid_api_key', message: 'The API key is not valid.' });
  });
});

describe('GET /api/projects/{projectId}/{environment}/jwks.json', () => {
  it('publishes the environment keys as a bare JWK Set, cacheable for 5 minutes', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.get(`/api/projects/${project.id}/production/jwks.json`).expect(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body.keys).toHaveLength(1);
    expect(Object.keys(res.body.keys[0]).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(res.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const sandbox = await http.get(`/api/projects/${project.id}/sandbox/jwks.json`).expect(200);
    expect(sandbox.body.keys[0].kid).not.toBe(res.body.keys[0].kid);
  });

  it('keeps the old key published after a rotation', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const rotated = await admin(app).post(`/admin/projects/${project.id}/environments/production/signing-keys/rotate`).expect(200);
    const res = await http.get(`/api/projects/${project.id}/production/jwks.json`).expect(200);
    expect(res.body.keys.map((key: { kid: string }) => key.kid)).toContain(rotated.body.data.kid);
    expect(res.body.keys).toHaveLength(2);
  });

  it('404 not_found for an unknown project, a malformed id or a bad environment', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    for (const path of [`/api/projects/${crypto.randomUUID()}/production/jwks.json`, '/api/projects/not-a-uuid/production/jwks.json', `/api/projects/${project.id}/staging/jwks.json`]) {
      const res = await http.get(path).expect(404);
      expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
    }
  });
});

describe('health', () => {
  it('/healthz is always 200', async () => {
    const { http } = buildTestApp({ ready: async () => Promise.reject(new Error('db down')) });
    expect((await http.get('/healthz').expect(200)).body).toEqual({ data: { status: 'ok' } });
  });

  it('/readyz is 200 when ready and 503 with the envelope when not', async () => {
    expect((await buildTestApp().http.get('/readyz').expect(200)).body).toEqual({ data: { status: 'ready' } });
    const down = buildTestApp({ ready: async () => Promise.reject(new Error('connection refused')) });
    const res = await down.http.get('/readyz').expect(503);
    expect(res.body).toEqual({ error: 'service_unavailable', message: 'The service is not ready: the database check failed.' });
    expect(res.headers['retry-after']).toBe('5');
    expect(down.logs.join('')).toContain('readiness check failed');
  });
});
