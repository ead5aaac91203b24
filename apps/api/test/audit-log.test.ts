import request from 'supertest';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// The audit log end to end on the real composition, SQLite and PostgreSQL: the events of sign-up,
// sign-in (failures included), refresh replay, log-out, the admin's moves, with the request's
// address, user agent and id and the actor; filters and paging; and no secret anywhere in it.

const CLIENT_IP = '203.0.113.77';
const AGENT = 'audit-test-agent/1.0';

interface Entry {
  id: string;
  type: string;
  at: string;
  userId: string | null;
  actor: { type: string; [k: string]: unknown };
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  data: Record<string, unknown>;
}

function auditCases(start: () => Promise<RealApp>) {
  let real: RealApp;
  let project: { id: string; live: string; sandbox: string };
  /** Every secret the scenario handled: none may appear in the log. */
  const secrets: string[] = [];
  const adminAuth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };

  beforeAll(async () => {
    real = await start();
    const created = await request(real.app).post('/admin/projects').set(adminAuth).send({ name: 'Audited' }).expect(201);
    project = { id: created.body.data.project.id, live: created.body.data.apiKeys.production, sandbox: created.body.data.apiKeys.sandbox };
    secrets.push(project.live, project.sandbox);
  }, 60_000);
  afterAll(async () => {
    await real?.close();
  });

  const keyed = (req: request.Test, requestId?: string) => {
    const withHeaders = req.set('X-API-Key', project.live).set('X-Svc-Client-Ip', CLIENT_IP).set('User-Agent', AGENT);
    return requestId ? withHeaders.set('X-Request-Id', requestId) : withHeaders;
  };
  const post = (path: string, body: object, requestId?: string) => keyed(request(real.app).post(path), requestId).send(body);
  const auditPath = (env = 'production') => `/admin/projects/${project.id}/environments/${env}/audit-log`;
  async function entries(query: Record<string, string | number> = {}, env = 'production'): Promise<Entry[]> {
    const all: Entry[] = [];
    let cursor: string | undefined;
    do {
      const res = await request(real.app)
        .get(auditPath(env))
        .set(adminAuth)
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .expect(200);
      all.push(...res.body.data.entries);
      cursor = res.body.data.nextCursor ?? undefined;
    } while (cursor);
    return all;
  }
  async function signUp(email: string, password: string, requestId?: string) {
    secrets.push(password);
    const res = await post('/api/auth/signup', { email, password }, requestId).expect(201);
    secrets.push(res.body.data.accessToken, res.body.data.refreshToken);
    return res.body.data as { user: { id: string }; accessToken: string; refreshToken: string };
  }

  it('records sign-up, failed and completed sign-ins with the request context, never the password', async () => {
    const ada = await signUp('ada@example.test', 'correct horse battery', 'req-signup-1');
    await post('/api/auth/login', { email: 'ada@example.test', password: 'wrong horse battery' }, 'req-login-bad').expect(401);
    secrets.push('wrong horse battery');
    await post('/api/auth/login', { email: 'nobody@example.test', password: 'nobody horse battery' }).expect(401);
    secrets.push('nobody horse battery');
    const signedIn = await post('/api/auth/login', { email: 'ada@example.test', password: 'correct horse battery' }).expect(200);
    secrets.push(signedIn.body.data.accessToken, signedIn.body.data.refreshToken);

    const mine = await entries({ userId: ada.user.id });
    const created = mine.find((e) => e.type === 'user.created')!;
    expect(created).toMatchObject({
      userId: ada.user.id,
      actor: { type: 'user', userId: ada.user.id },
      clientAddress: CLIENT_IP,
      userAgent: AGENT,
      requestId: 'req-signup-1',
      data: { method: 'password' },
    });
    const failed = mine.find((e) => e.type === 'user.sign_in_failed')!;
    expect(failed).toMatchObject({ requestId: 'req-login-bad', actor: { type: 'api_key' }, data: { method: 'password', reason: 'invalid_credentials' } });
    // An unknown address fails too, without a user.
    const failures = await entries({ type: 'user.sign_in_failed' });
    expect(failures.some((e) => e.userId === null && e.data.reason === 'invalid_credentials')).toBe(true);
    expect(mine.find((e) => e.type === 'user.signed_in')).toMatchObject({ data: { method: 'password', sessionId: expect.any(String) } });
  });

  it('records a replayed refresh token and what it ended, by default every session of the user', async () => {
    const bob = await signUp('bob@example.test', 'bob horse battery');
    const second = await post('/api/auth/login', { email: 'bob@example.test', password: 'bob horse battery' }).expect(200);
    const rotated = await post('/api/auth/refresh', { refreshToken: bob.refreshToken }).expect(200);
    secrets.push(rotated.body.data.accessToken, rotated.body.data.refreshToken, second.body.data.refreshToken);
    await post('/api/auth/refresh', { refreshToken: bob.refreshToken }).expect(401);
    const [reused] = await entries({ type: 'refresh_token.reused', userId: bob.user.id });
    expect(reused).toMatchObject({ actor: { type: 'api_key' }, clientAddress: CLIENT_IP, userAgent: AGENT, data: { response: 'revoke_all_sessions', sessionsRevoked: 2 } });
    // Every session ended: the other sign-in's token is dead too.
    await post('/api/auth/refresh', { refreshToken: second.body.data.refreshToken }).expect(401);
  });

  it('with revoke_session, a replay ends only that session; the admin edit is recorded before/after in both environments', async () => {
    await request(real.app).patch(`/admin/projects/${project.id}`).set(adminAuth).send({ refreshReuseResponse: 'revoke_session', auditRetentionDays: 30 }).expect(200);
    const [updated] = await entries({ type: 'project.updated' });
    expect(updated).toMatchObject({
      actor: { type: 'admin', via: 'admin_token' },
      data: { before: { refreshReuseResponse: 'revoke_all_sessions', auditRetentionDays: 90 }, after: { refreshReuseResponse: 'revoke_session', auditRetentionDays: 30 } },
    });
    expect(await entries({ type: 'project.updated' }, 'sandbox')).toHaveLength(1);
    // A key resolved before the change keeps the project it read for a few seconds (its cache): a fresh one.
    const fresh = await request(real.app).post(`/admin/projects/${project.id}/api-keys`).set(adminAuth).send({ environment: 'production' }).expect(201);
    project.live = fresh.body.data.key;
    secrets.push(project.live);

    const cy = await signUp('cy@example.test', 'cy horse battery');
    const other = await post('/api/auth/login', { email: 'cy@example.test', password: 'cy horse battery' }).expect(200);
    secrets.push(other.body.data.refreshToken);
    const rotated = await post('/api/auth/refresh', { refreshToken: cy.refreshToken }).expect(200);
    secrets.push(rotated.body.data.refreshToken);
    await post('/api/auth/refresh', { refreshToken: cy.refreshToken }).expect(401);
    const [reused] = await entries({ type: 'refresh_token.reused', userId: cy.user.id });
    expect(reused.data).toMatchObject({ response: 'revoke_session', sessionsRevoked: 1 });
    // The user's other session lives on.
    const still = await post('/api/auth/refresh', { refreshToken: other.body.data.refreshToken }).expect(200);
    secrets.push(still.body.data.refreshToken);
  });

  it('with refreshReuseNotice, a replay also mails the user a notice without a link; without it, none', async () => {
    // A project of its own: the other cases count this project's entries.
    const created = await request(real.app).post('/admin/projects').set(adminAuth).send({ name: 'Noticed' }).expect(201);
    const own = { id: created.body.data.project.id as string, sandbox: created.body.data.apiKeys.sandbox as string };
    secrets.push(created.body.data.apiKeys.production, own.sandbox);
    const sandboxOutbox = async (email: string) =>
      (await request(real.app).get(`/admin/projects/${own.id}/environments/sandbox/outbox`).query({ email }).set(adminAuth).expect(200)).body.data.mails as {
        template: string;
        subject: string;
        links: string[];
      }[];
    const notices = async (email: string) => (await sandboxOutbox(email)).filter((m) => m.template === 'refresh_token_reused');
    const replay = async (email: string) => {
      const signedUp = await request(real.app).post('/api/auth/signup').set('X-API-Key', own.sandbox).send({ email, password: 'dee horse battery' }).expect(201);
      const rotated = await request(real.app).post('/api/auth/refresh').set('X-API-Key', own.sandbox).send({ refreshToken: signedUp.body.data.refreshToken }).expect(200);
      secrets.push(signedUp.body.data.refreshToken, rotated.body.data.refreshToken, signedUp.body.data.accessToken, rotated.body.data.accessToken);
      await request(real.app).post('/api/auth/refresh').set('X-API-Key', own.sandbox).send({ refreshToken: signedUp.body.data.refreshToken }).expect(401);
      return signedUp.body.data as { refreshToken: string };
    };
    await replay('dee@example.test');
    expect(await notices('dee@example.test')).toEqual([]);

    const patched = await request(real.app).patch(`/admin/projects/${own.id}`).set(adminAuth).send({ refreshReuseNotice: true }).expect(200);
    expect(patched.body.data.project.refreshReuseNotice).toBe(true);
    // A key resolved before the change keeps the project it read for a few seconds (its cache): a fresh one.
    own.sandbox = (await request(real.app).post(`/admin/projects/${own.id}/api-keys`).set(adminAuth).send({ environment: 'sandbox' }).expect(201)).body.data.key;
    secrets.push(own.sandbox);
    const replayed = await replay('eve@example.test');
    expect(await notices('eve@example.test')).toEqual([expect.objectContaining({ subject: 'Your Noticed account was signed out as a precaution', links: [] })]);
    // A token of a session the replay already ended is dead, not a second replay: no second mail.
    await request(real.app).post('/api/auth/refresh').set('X-API-Key', own.sandbox).send({ refreshToken: replayed.refreshToken }).expect(401);
    expect(await notices('eve@example.test')).toHaveLength(1);
    const refused = await request(real.app).patch(`/admin/projects/${own.id}`).set(adminAuth).send({ refreshReuseNotice: 'yes' }).expect(400);
    expect(refused.body).toMatchObject({ error: 'validation_error', message: 'refreshReuseNotice must be true or false.' });
  });

  it('records log-out and the admin moves on users, keys and signing keys with the admin as actor', async () => {
    const dee = await signUp('dee@example.test', 'dee horse battery');
    await post('/api/auth/logout', { refreshToken: dee.refreshToken }).expect(200);
    const users = `/admin/projects/${project.id}/environments/production/users/${dee.user.id}`;
    await request(real.app).post(`${users}/ban`).set(adminAuth).expect(200);
    await request(real.app).post(`${users}/unban`).set(adminAuth).expect(200);
    await request(real.app).delete(users).set(adminAuth).expect(200);
    const key = await request(real.app).post(`/admin/projects/${project.id}/api-keys`).set(adminAuth).send({ environment: 'production' }).expect(201);
    secrets.push(key.body.data.key);
    await request(real.app).delete(`/admin/projects/${project.id}/api-keys/${key.body.data.id}`).set(adminAuth).expect(200);
    await request(real.app).post(`/admin/projects/${project.id}/environments/production/signing-keys/rotate`).set(adminAuth).expect(200);

    const types = (await entries({ userId: dee.user.id })).map((e) => e.type).reverse();
    expect(types).toEqual(['user.created', 'user.signed_out', 'user.banned', 'user.unbanned', 'user.deleted']);
    const admin = { type: 'admin', via: 'admin_token' };
    expect((await entries({ type: 'user.banned', userId: dee.user.id }))[0].actor).toEqual(admin);
    const [revoked] = await entries({ type: 'api_key.revoked' });
    expect(revoked).toMatchObject({ actor: admin, data: { apiKeyId: key.body.data.id } });
    expect((await entries({ type: 'api_key.created' })).map((e) => e.data.apiKeyId)).toContain(key.body.data.id);
    expect(await entries({ type: 'signing_key.rotated' })).toHaveLength(2); // at creation, and now
  });

  it('records the management API and the console: imports, profile edits and ended sessions, with the console as actor', async () => {
    const agent = request.agent(real.app);
    const signedIn = await agent.post('/console/api/session').send({ token: REAL_ADMIN_TOKEN }).expect(200);
    const csrf = signedIn.body.data.csrfToken as string;
    const users = `/admin/projects/${project.id}/environments/production/users`;
    const created = await agent.post(users).set('X-Svc-Csrf', csrf).send({ email: 'eve@example.test' }).expect(201);
    const eve = created.body.data.user.id as string;
    await request(real.app).patch(`${users}/${eve}`).set(adminAuth).send({ role: 'editor' }).expect(200);
    const session = await signUp('fay@example.test', 'fay horse battery');
    await agent.post(`${users}/${session.user.id}/sessions/revoke-all`).set('X-Svc-Csrf', csrf).expect(200);

    const [imported] = await entries({ type: 'user.created', userId: eve });
    expect(imported).toMatchObject({ actor: { type: 'admin', via: 'console' }, data: { method: 'admin' } });
    const [edited] = await entries({ type: 'user.updated', userId: eve });
    expect(edited).toMatchObject({ actor: { type: 'admin', via: 'admin_token' }, data: { fields: ['role'] } });
    const [ended] = await entries({ type: 'session.revoked', userId: session.user.id });
    expect(ended).toMatchObject({ actor: { type: 'admin', via: 'console' }, data: { why: 'session_ended', count: 1 } });
  });

  it('records what users do to their own account: password change, ended sessions, deletion', async () => {
    const gus = await signUp('gus@example.test', 'gus horse battery');
    const second = await post('/api/auth/login', { email: 'gus@example.test', password: 'gus horse battery' }).expect(200);
    secrets.push(second.body.data.accessToken, second.body.data.refreshToken, 'gus new horse battery');
    const bearer = (req: request.Test, token = gus.accessToken) => keyed(req).set('Authorization', `Bearer ${token}`);
    await bearer(request(real.app).post('/api/auth/password/change')).send({ currentPassword: 'gus horse battery', newPassword: 'gus new horse battery' }).expect(200);
    const third = await post('/api/auth/login', { email: 'gus@example.test', password: 'gus new horse battery' }).expect(200);
    secrets.push(third.body.data.accessToken, third.body.data.refreshToken);
    await bearer(request(real.app).post('/api/auth/logout-all'), third.body.data.accessToken).send({}).expect(200);
    const fourth = await post('/api/auth/login', { email: 'gus@example.test', password: 'gus new horse battery' }).expect(200);
    secrets.push(fourth.body.data.accessToken, fourth.body.data.refreshToken);
    await bearer(request(real.app).delete('/api/auth/account'), fourth.body.data.accessToken).send({}).expect(200);

    const user = { type: 'user', userId: gus.user.id };
    const [changed] = await entries({ type: 'password.changed', userId: gus.user.id });
    expect(changed).toMatchObject({ actor: user, clientAddress: CLIENT_IP, userAgent: AGENT });
    const ended = (await entries({ type: 'session.revoked', userId: gus.user.id })).map((e) => e.data).reverse();
    expect(ended).toEqual([
      { why: 'password_changed', count: 1 },
      { why: 'session_ended', count: 2 },
    ]);
    expect(await entries({ type: 'user.deleted', userId: gus.user.id })).toEqual([expect.objectContaining({ actor: user })]);
  });

  it('filters by time range and pages without gaps or repeats', async () => {
    const all = await entries();
    const paged = await entries({ limit: 3 });
    expect(paged.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    const times = all.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await entries({ from: future })).toEqual([]);
    expect(await entries({ to: new Date(0).toISOString() })).toEqual([]);
    expect((await entries({ from: all[all.length - 1].at, to: future })).length).toBe(all.length);
    // Sandbox has its own log: only what concerned both environments.
    expect((await entries({}, 'sandbox')).map((e) => e.type).sort()).toEqual(['api_key.created', 'project.updated', 'signing_key.rotated']);
  });

  it('answers bad queries with the error envelope', async () => {
    const get = (query: Record<string, string>, path = auditPath()) => request(real.app).get(path).set(adminAuth).query(query);
    const bad: Record<string, string>[] = [{ type: 'user.exploded' }, { userId: 'nope' }, { from: 'yesterday' }, { limit: '0' }, { limit: '201' }, { cursor: 'bogus' }];
    for (const query of bad) {
      const res = await get(query).expect(400);
      expect(res.body.error).toBe('validation_error');
    }
    expect((await get({}, `/admin/projects/${project.id}/environments/staging/audit-log`).expect(404)).body.error).toBe('not_found');
    expect((await get({}, '/admin/projects/00000000-0000-4000-8000-000000000000/environments/production/audit-log').expect(404)).body.error).toBe('not_found');
    expect((await request(real.app).get(auditPath()).expect(401)).body.error).toBe('unauthorized');
  });

  it('holds no secret: no password, token or API key in any entry of either environment', async () => {
    // Every stored field but the expiry is in the answer, so this scans what is stored.
    const all = [...(await entries()), ...(await entries({}, 'sandbox'))];
    const text = JSON.stringify(all);
    expect(secrets.length).toBeGreaterThan(20);
    expect(all.length).toBeGreaterThan(20);
    for (const secret of secrets) expect(text).not.toContain(secret);
    // Nor anything shaped like an API key or a JWT (a kid is a public thumbprint, so no length rule).
    expect(text).not.toMatch(/svc_(live|sbx)_/);
    expect(text).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
  });
}

describe('audit log on SQLite', () => {
  auditCases(() => startRealApp());
});

describeWithPostgres('audit log on PostgreSQL', (databaseUrl) => {
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await drop?.();
  });
  auditCases(async () => {
    const schema = await createTestSchema(databaseUrl);
    drop = schema.drop;
    return startRealApp({ DATABASE_URL: databaseUrl, SVC_DATABASE_SCHEMA: schema.schema });
  });
});
