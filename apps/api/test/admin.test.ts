import request from 'supertest';
import { ADMIN_TOKEN, admin, buildTestApp, createProject, ISO_DATE, signUp } from './helpers';

const PROJECT_KEYS = [
  'absoluteSessionLifetimeSeconds',
  'accessTokenTtlSeconds',
  'allowedOrigins',
  'auditRetentionDays',
  'createdAt',
  'defaultMeta',
  'emailTemplates',
  'emailVerification',
  'emailVerificationUrl',
  'id',
  'magicLinkUrl',
  'name',
  'oidcLoginUrl',
  'passwordResetUrl',
  'plan',
  'rateLimits',
  'recentSignInSeconds',
  'redirectUrls',
  'refreshReuseGraceSeconds',
  'refreshReuseNotice',
  'refreshReuseResponse',
  'refreshTokenTtlSeconds',
  'rejectCommonPasswords',
  'updatedAt',
  'userLimit',
  'webauthn',
];

describe('admin API authentication', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${ADMIN_TOKEN}x`],
    ['a prefix of the token', `Bearer ${ADMIN_TOKEN.slice(0, 10)}`],
    ['another scheme', `Basic ${ADMIN_TOKEN}`],
  ])('401 unauthorized for %s, on known and unknown admin paths alike', async (_name, header) => {
    const { app } = buildTestApp();
    for (const path of ['/admin/projects', '/admin/nothing-here']) {
      const req = request(app).post(path).send({ name: 'x' });
      const res = await (header ? req.set('Authorization', header) : req).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'Authentication is required.' });
    }
  });
});

describe('admin projects', () => {
  it('POST /admin/projects -> 201 with the project, both keys and both public keys', async () => {
    const { app } = buildTestApp();
    const res = await admin(app)
      .post('/admin/projects', { name: '  Shop ', plan: 'SOLO', allowedOrigins: ['https://shop.example'], redirectUrls: ['http://localhost:3000/cb'] })
      .expect(201);
    const { project, apiKeys, publicKeys } = res.body.data;
    expect(Object.keys(project).sort()).toEqual(PROJECT_KEYS);
    expect(project).toMatchObject({ name: 'Shop', plan: 'SOLO', allowedOrigins: ['https://shop.example'], userLimit: null, accessTokenTtlSeconds: 900, refreshReuseGraceSeconds: 0 });
    // The contract leaves these open: a 90-day absolute session lifetime, the common-password check off.
    expect(project).toMatchObject({ absoluteSessionLifetimeSeconds: 7_776_000, rejectCommonPasswords: false, recentSignInSeconds: 300 });
    expect(project.createdAt).toMatch(ISO_DATE);
    expect(apiKeys.production).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(apiKeys.sandbox).toMatch(/^svc_sbx_[A-Za-z0-9_-]{43}$/);
    expect(publicKeys.production).toContain('BEGIN PUBLIC KEY');
    expect(publicKeys.sandbox).not.toBe(publicKeys.production);
  });

  it.each([
    [{}, 'name is required.'],
    [{ name: '' }, 'name must not be empty.'],
    [{ name: 'x', plan: 'GOLD' }, 'plan must be one of FREE, SOLO, PRO.'],
    [{ name: 'x', allowedOrigins: 'https://a.example' }, 'allowedOrigins must be an array.'],
    [{ name: 'x', allowedOrigins: ['https://a.example/path'] }, 'each entry of allowedOrigins must be an origin such as https://app.example.com (scheme, host, optional port; no path).'],
    [{ name: 'x', redirectUrls: ['http://evil.example/cb'] }, 'each entry of redirectUrls must be an https URL (http only for localhost) without credentials or fragment.'],
    [{ name: 'x', magicLinkUrl: 'https://user:pw@a.example/' }, 'magicLinkUrl must be an https URL (http only for localhost) without credentials or fragment.'],
    [{ name: 'x', userLimit: -1 }, 'userLimit must not be negative.'],
    [{ name: 'x', userLimit: 1.5 }, 'userLimit must be an integer or null.'],
    [{ name: 'x', accessTokenTtlSeconds: 59 }, 'accessTokenTtlSeconds must be from 60 to 86400.'],
    [{ name: 'x', refreshTokenTtlSeconds: 31_536_001 }, 'refreshTokenTtlSeconds must be from 300 to 31536000.'],
    [{ name: 'x', refreshReuseGraceSeconds: 61 }, 'refreshReuseGraceSeconds must be from 0 to 60.'],
    [{ name: 'x', defaultMeta: [] }, 'defaultMeta must be a JSON object.'],
    [{ name: 'x', absoluteSessionLifetimeSeconds: 299 }, 'absoluteSessionLifetimeSeconds must be from 300 to 315360000.'],
    [{ name: 'x', absoluteSessionLifetimeSeconds: null }, 'absoluteSessionLifetimeSeconds must be an integer.'],
    [{ name: 'x', rejectCommonPasswords: 'yes' }, 'rejectCommonPasswords must be true or false.'],
  ])('POST /admin/projects %j -> 400 %s', async (body, message) => {
    const { app } = buildTestApp();
    expect((await admin(app).post('/admin/projects', body).expect(400)).body).toEqual({ error: 'validation_error', message });
  });

  it('GET and PATCH /admin/projects/{id}; null clears nullable fields, not the others', async () => {
    const { app } = buildTestApp();
    const project = await createProject(app, { name: 'P', userLimit: 5, magicLinkUrl: 'https://app.example/magic' });
    expect((await admin(app).get(`/admin/projects/${project.id}`).expect(200)).body.data.project).toMatchObject({ id: project.id, userLimit: 5 });
    const patched = await admin(app).patch(`/admin/projects/${project.id}`, { plan: 'PRO', userLimit: null, magicLinkUrl: null }).expect(200);
    expect(patched.body.data.project).toMatchObject({ name: 'P', plan: 'PRO', userLimit: null, magicLinkUrl: null });
    expect((await admin(app).patch(`/admin/projects/${project.id}`, { name: null }).expect(400)).body).toEqual({ error: 'validation_error', message: 'name must be a string.' });
    const security = { absoluteSessionLifetimeSeconds: 86_400, rejectCommonPasswords: true };
    expect((await admin(app).patch(`/admin/projects/${project.id}`, security).expect(200)).body.data.project).toMatchObject(security);
    expect((await admin(app).get(`/admin/projects/${project.id}`).expect(200)).body.data.project).toMatchObject(security);
    expect((await admin(app).patch(`/admin/projects/${project.id}`, { name: '   ' }).expect(400)).body).toEqual({ error: 'validation_error', message: 'name must not be empty.' });
  });

  it('404 not_found for an unknown or malformed project id', async () => {
    const { app } = buildTestApp();
    for (const id of [crypto.randomUUID(), 'nope']) {
      expect((await admin(app).get(`/admin/projects/${id}`).expect(404)).body).toEqual({ error: 'not_found', message: 'Project not found.' });
      expect((await admin(app).patch(`/admin/projects/${id}`, { plan: 'PRO' }).expect(404)).body.error).toBe('not_found');
      expect((await admin(app).post(`/admin/projects/${id}/api-keys`, { environment: 'sandbox' }).expect(404)).body.error).toBe('not_found');
      expect((await admin(app).get(`/admin/projects/${id}/environments/production/users`).expect(404)).body.error).toBe('not_found');
    }
  });
});

describe('admin API keys and signing keys', () => {
  it('creates, lists (without hashes) and revokes keys', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const created = await admin(app).post(`/admin/projects/${project.id}/api-keys`, { environment: 'sandbox' }).expect(201);
    expect(Object.keys(created.body.data).sort()).toEqual(['environment', 'id', 'key']);
    expect(created.body.data).toMatchObject({ environment: 'sandbox', key: expect.stringMatching(/^svc_sbx_/) });
    await http.get('/api/auth/sdk/branding').set('X-API-Key', created.body.data.key).expect(200);
    const list = await admin(app).get(`/admin/projects/${project.id}/api-keys`).expect(200);
    expect(list.body.data.apiKeys).toHaveLength(3);
    for (const key of list.body.data.apiKeys) expect(Object.keys(key).sort()).toEqual(['createdAt', 'environment', 'id', 'revokedAt', 'suffix']);
    expect(JSON.stringify(list.body)).not.toContain(created.body.data.key);
    expect((await admin(app).delete(`/admin/projects/${project.id}/api-keys/${created.body.data.id}`).expect(200)).body).toEqual({ data: { success: true } });
    expect((await admin(app).delete(`/admin/projects/${project.id}/api-keys/${created.body.data.id}`).expect(404)).body).toEqual({ error: 'not_found', message: 'API key not found.' });
    const revoked = (await admin(app).get(`/admin/projects/${project.id}/api-keys`).expect(200)).body.data.apiKeys.find((k: { id: string }) => k.id === created.body.data.id);
    expect(revoked.revokedAt).toMatch(ISO_DATE);
  });

  it('400 for a bad environment in the body', async () => {
    const { app } = buildTestApp();
    const project = await createProject(app);
    expect((await admin(app).post(`/admin/projects/${project.id}/api-keys`, { environment: 'staging' }).expect(400)).body).toEqual({
      error: 'validation_error',
      message: 'environment must be one of production, sandbox.',
    });
  });

  it('rotates a signing key and shows the current public key; tokens signed before still verify', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live);
    const rotated = await admin(app).post(`/admin/projects/${project.id}/environments/production/signing-keys/rotate`).expect(200);
    expect(Object.keys(rotated.body.data).sort()).toEqual(['kid', 'publicKey']);
    const current = await admin(app).get(`/admin/projects/${project.id}/environments/production/public-key`).expect(200);
    expect(current.body.data).toEqual(rotated.body.data);
    await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
    expect((await admin(app).get(`/admin/projects/${project.id}/environments/staging/public-key`).expect(404)).body.error).toBe('not_found');
  });
});

describe('admin users', () => {
  it('lists users in the admin view (never the password hash), filters by e-mail and pages', async () => {
    const { app } = buildTestApp();
    const project = await createProject(app);
    for (const name of ['a', 'b', 'c']) await signUp(app, project.live, `${name}@example.com`);
    const base = `/admin/projects/${project.id}/environments/production/users`;
    const all = await admin(app).get(base).expect(200);
    expect(all.body.data.users).toHaveLength(3);
    expect(all.body.data.nextCursor).toBeNull();
    expect(Object.keys(all.body.data.users[0]).sort()).toEqual(['banned', 'bannedAt', 'createdAt', 'email', 'emailVerified', 'id', 'lastLoginAt', 'meta', 'role']);
    expect(JSON.stringify(all.body)).not.toContain('passwordHash');
    const byEmail = await admin(app).get(`${base}?email=B@Example.com`).expect(200);
    expect(byEmail.body.data.users.map((u: { email: string }) => u.email)).toEqual(['b@example.com']);
    const page = await admin(app).get(`${base}?limit=2`).expect(200);
    expect(page.body.data.users).toHaveLength(2);
    const rest = await admin(app).get(`${base}?limit=2&cursor=${page.body.data.nextCursor}`).expect(200);
    expect(rest.body.data).toMatchObject({ nextCursor: null });
    expect(rest.body.data.users).toHaveLength(1);
    expect((await admin(app).get(`/admin/projects/${project.id}/environments/sandbox/users`).expect(200)).body.data.users).toEqual([]);
    expect((await admin(app).get(`${base}?limit=0`).expect(400)).body).toEqual({ error: 'validation_error', message: 'limit must be an integer from 1 to 200.' });
    expect((await admin(app).get(`${base}?cursor=x`).expect(400)).body.error).toBe('validation_error');
    expect((await admin(app).get(`${base}?email=a@example.com&email=b@example.com`).expect(400)).body.error).toBe('validation_error');
  });

  it('bans, unbans and deletes users', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const session = await signUp(app, project.live, 'ada@example.com');
    const base = `/admin/projects/${project.id}/environments/production/users`;
    expect((await admin(app).post(`${base}/${session.user.id}/ban`).expect(200)).body).toEqual({ data: { success: true } });
    const banned = (await admin(app).get(base).expect(200)).body.data.users[0];
    expect(banned).toMatchObject({ banned: true, bannedAt: expect.stringMatching(ISO_DATE) });
    await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: session.refreshToken }).expect(401);
    expect((await admin(app).post(`${base}/${session.user.id}/unban`).expect(200)).body).toEqual({ data: { success: true } });
    expect((await admin(app).get(base).expect(200)).body.data.users[0]).toMatchObject({ banned: false, bannedAt: null });
    const fresh = (await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: 'correct horse battery' }).expect(200)).body.data;
    expect((await admin(app).delete(`${base}/${session.user.id}`).expect(200)).body).toEqual({ data: { success: true } });
    expect((await admin(app).get(base).expect(200)).body.data.users).toEqual([]);
    await http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${fresh.accessToken}`).expect(401);
  });

  it('404 user_not_found for unknown users, in the wrong environment, or with a malformed id; 404 not_found for a bad environment', async () => {
    const { app } = buildTestApp();
    const project = await createProject(app);
    const { user } = await signUp(app, project.live);
    const notFound = { error: 'user_not_found', message: 'The user was not found.' };
    expect((await admin(app).post(`/admin/projects/${project.id}/environments/sandbox/users/${user.id}/ban`).expect(404)).body).toEqual(notFound);
    expect((await admin(app).delete(`/admin/projects/${project.id}/environments/production/users/${crypto.randomUUID()}`).expect(404)).body).toEqual(notFound);
    expect((await admin(app).post(`/admin/projects/${project.id}/environments/production/users/nope/unban`).expect(404)).body).toEqual(notFound);
    expect((await admin(app).post(`/admin/projects/${project.id}/environments/live/users/${user.id}/ban`).expect(404)).body.error).toBe('not_found');
  });
});
