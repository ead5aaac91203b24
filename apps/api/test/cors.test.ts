import { buildTestApp, createProject } from './helpers';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

describe('CORS by project', () => {
  it('answers a preflight for any origin with the allowed methods, headers and max-age (no key on preflights)', async () => {
    const { http } = buildTestApp();
    const res = await http.options('/api/auth/login').set('Origin', EVIL).set('Access-Control-Request-Method', 'POST').set('Access-Control-Request-Headers', 'x-api-key, content-type').expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(EVIL);
    expect(res.headers['access-control-allow-methods']).toBe('GET, POST, DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('X-API-Key, Content-Type, Authorization, X-Request-Id');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toMatch(/Origin/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    // An OPTIONS that is not a preflight reaches no route.
    expect((await http.options('/api/auth/login').expect(404)).body.error).toBe('not_found');
  });

  it('echoes an allowed origin on the actual request, with Vary: Origin and exposed headers, never credentials', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app, { name: 'Listed', allowedOrigins: [APP] });
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).set('Origin', APP).send({ email: 'a@example.com', password: 'long enough' }).expect(201);
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers.vary).toMatch(/Origin/);
    expect(res.headers['access-control-expose-headers']).toBe('X-Request-Id, RateLimit, RateLimit-Policy, Retry-After');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    // Errors after the origin check stay readable by the page.
    const wrong = await http.post('/api/auth/login').set('X-API-Key', project.live).set('Origin', APP).send({ email: 'a@example.com', password: 'wrong password' }).expect(401);
    expect(wrong.headers['access-control-allow-origin']).toBe(APP);
  });

  it('403 origin_not_allowed before any effect, without Access-Control-Allow-Origin; no Origin is never refused', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app, { name: 'Listed', allowedOrigins: [APP] });
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).set('Origin', EVIL).send({ email: 'a@example.com', password: 'long enough' }).expect(403);
    expect(res.body).toEqual({ error: 'origin_not_allowed', message: 'The request origin is not allowed for this project.' });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers.vary).toMatch(/Origin/);
    // The refused sign-up did not happen: the address is still free.
    await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'a@example.com', password: 'long enough' }).expect(201);
    // Exact match only: scheme, host and port.
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).set('Origin', 'http://app.example.com').expect(403);
    await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).set('Origin', `${APP}:8443`).expect(403);
  });

  it('an empty allowedOrigins list allows any origin, echoed without credentials', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.get('/api/auth/sdk/branding').set('X-API-Key', project.live).set('Origin', EVIL).expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(EVIL);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('magic-link verify takes its project from the `project` query; HEAD never reaches it', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app, { name: 'Listed', allowedOrigins: [APP] });
    const verify = (origin: string, projectId = project.id) =>
      http
        .get('/api/auth/magic-link/verify')
        .query({ token: 'x'.repeat(43), project: projectId })
        .set('Origin', origin);
    const refused = await verify(EVIL).expect(403);
    expect(refused.body.error).toBe('origin_not_allowed');
    const allowed = await verify(APP);
    expect(allowed.status).not.toBe(403);
    expect(allowed.headers['access-control-allow-origin']).toBe(APP);
    // An unknown or malformed project grants nothing and refuses nothing: the route answers.
    const unknown = await verify(EVIL, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).not.toBe(403);
    expect(unknown.headers['access-control-allow-origin']).toBeUndefined();
    await http.head('/api/auth/magic-link/verify').query({ token: 'x', project: project.id }).expect(404);
  });
});
