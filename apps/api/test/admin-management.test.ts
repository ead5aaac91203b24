import type { Express } from 'express';
import request from 'supertest';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { REAL_ADMIN_TOKEN, startRealApp } from './support/real-app';
import { createTestDatabase } from './support/test-database';

// The management API end to end on the real composition, once on SQLite and once on PostgreSQL:
// project list and delete, user search with a total, detail, changes, imports and sessions.

type Open = () => Promise<{ app: Express; close(): Promise<void> }>;

function managementSuite(label: string, open: Open | ((url: string) => Open), describeIt: (name: string, body: (url: string) => void) => void) {
  describeIt(`management API on ${label}`, (url) => {
    let app: Express;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const opener = open.length === 1 ? (open as (url: string) => Open)(url) : (open as Open);
      ({ app, close } = await opener());
    }, 60_000);
    afterAll(async () => close?.());

    const auth = { Authorization: `Bearer ${REAL_ADMIN_TOKEN}` };
    const get = (path: string) => request(app).get(path).set(auth);
    const post = (path: string, body: object = {}) => request(app).post(path).set(auth).send(body);
    const patch = (path: string, body: object) => request(app).patch(path).set(auth).send(body);
    const del = (path: string) => request(app).delete(path).set(auth);

    async function project(name: string) {
      const res = await post('/admin/projects', { name }).expect(201);
      return { id: res.body.data.project.id as string, live: res.body.data.apiKeys.production as string };
    }
    async function signUp(key: string, email: string, headers: Record<string, string> = {}) {
      const res = await request(app).post('/api/auth/signup').set('X-API-Key', key).set(headers).send({ email, password: 'correct horse battery' }).expect(201);
      return res.body.data as { user: { id: string }; accessToken: string; refreshToken: string };
    }

    it('lists projects by keyset pages, searches names, and deletes a project with its data', async () => {
      const tag = `t${Date.now().toString(36)}`;
      const made = [];
      for (const name of [`${tag} Shop`, `${tag} shop two`, `${tag} Blog`]) made.push(await project(name));
      const found = await get(`/admin/projects?q=${tag.toUpperCase()}%20SHOP&limit=1`).expect(200);
      expect(found.body.data.projects).toHaveLength(1);
      const next = await get(`/admin/projects?q=${tag}%20shop&limit=1&cursor=${found.body.data.nextCursor}`).expect(200);
      const names = [found.body.data.projects[0].name, next.body.data.projects[0].name].sort();
      expect(names).toEqual([`${tag} Shop`, `${tag} shop two`]);
      expect(next.body.data.nextCursor).toBeNull();

      const doomed = made[2];
      const user = await signUp(doomed.live, 'gone@example.test');
      expect((await del(`/admin/projects/${doomed.id}`).expect(200)).body).toEqual({ data: { success: true } });
      await get(`/admin/projects/${doomed.id}`).expect(404);
      await get(`/admin/projects/${doomed.id}/environments/production/users/${user.user.id}`).expect(404);
      // Its keys resolve no more (after the key cache's few seconds, at most).
      expect((await del(`/admin/projects/${doomed.id}`).expect(404)).body).toEqual({ error: 'not_found', message: 'Project not found.' });
      expect((await get(`/admin/projects?q=${tag}%20blog`).expect(200)).body.data.projects).toEqual([]);
    });

    it('searches users by part of the e-mail with a total, page by page', async () => {
      const { id, live } = await project('Search');
      for (const email of ['ada@example.test', 'adam@example.test', 'bob@example.test', 'madame@other.test']) await signUp(live, email);
      const base = `/admin/projects/${id}/environments/production/users`;
      const first = await get(`${base}?q=ADA&limit=2`).expect(200);
      expect(first.body.data.total).toBe(3);
      expect(first.body.data.users).toHaveLength(2);
      const second = await get(`${base}?q=ada&limit=2&cursor=${first.body.data.nextCursor}`).expect(200);
      expect(second.body.data).toMatchObject({ total: 3, nextCursor: null });
      const emails = [...first.body.data.users, ...second.body.data.users].map((u: { email: string }) => u.email).sort();
      expect(emails).toEqual(['ada@example.test', 'adam@example.test', 'madame@other.test']);
      expect((await get(base).expect(200)).body.data.total).toBe(4);
      expect((await get(`${base}?email=bob@example.test`).expect(200)).body.data).toMatchObject({ total: 1, users: [{ email: 'bob@example.test' }] });
      expect((await get(`/admin/projects/${id}/environments/sandbox/users?q=ada`).expect(200)).body.data).toEqual({ users: [], nextCursor: null, total: 0 });
    });

    it('refuses unknown query parameters on every admin list, naming them', async () => {
      const { id } = await project('Strict');
      const lists = [
        '/admin/projects',
        `/admin/projects/${id}/environments/production/users`,
        `/admin/projects/${id}/api-keys`,
        `/admin/projects/${id}/outbox/dead`,
        `/admin/projects/${id}/oauth-providers`,
        `/admin/projects/${id}/oidc-clients`,
      ];
      for (const path of lists) {
        const res = await get(`${path}?emial=a&zz=1`).expect(400);
        expect(res.body).toEqual({ error: 'validation_error', message: 'The query has unknown parameter(s): emial, zz.' });
      }
      const sandbox = await get(`/admin/projects/${id}/environments/sandbox/outbox?email=a@example.test&extra=1`).expect(400);
      expect(sandbox.body.message).toBe('The query has unknown parameter(s): extra.');
      expect((await get('/admin/projects?q=%20%20').expect(400)).body).toEqual({ error: 'validation_error', message: 'q must not be empty.' });
      expect((await get('/admin/projects?limit=201').expect(400)).body.message).toBe('limit must be an integer from 1 to 200.');
    });

    it('shows one user with sessions, changes role, meta and verification, and the role reaches the next token', async () => {
      const { id, live } = await project('Detail');
      const userAgent = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
      const signed = await signUp(live, 'grace@example.test', { 'User-Agent': userAgent, 'X-Svc-Client-Ip': '198.51.100.23' });
      await signUp(live, 'other@example.test');
      const path = `/admin/projects/${id}/environments/production/users/${signed.user.id}`;
      const detail = (await get(path).expect(200)).body.data.user;
      expect(detail).toMatchObject({
        id: signed.user.id,
        email: 'grace@example.test',
        role: 'user',
        emailVerified: false,
        banned: false,
        hasPassword: true,
        totpEnabled: false,
        passkeys: [],
        identities: [],
      });
      expect(detail.sessions).toHaveLength(1);
      expect(detail.sessions[0]).toMatchObject({ active: true, revokedAt: null, address: '198.51.100.23', userAgent });
      expect(detail).not.toHaveProperty('passwordHash');

      const changed = await patch(path, { role: 'editor', meta: { team: 'blue' }, emailVerified: true }).expect(200);
      expect(changed.body.data.user).toMatchObject({ role: 'editor', meta: { team: 'blue' }, emailVerified: true });
      const refreshed = await request(app).post('/api/auth/refresh').set('X-API-Key', live).send({ refreshToken: signed.refreshToken }).expect(200);
      const claims = JSON.parse(Buffer.from(refreshed.body.data.accessToken.split('.')[1], 'base64url').toString());
      expect(claims.role).toBe('editor');

      for (const [body, message] of [
        [{ role: 'has space' }, 'role may hold only letters, digits and _ . : - (starting with a letter or digit).'],
        [{ role: '' }, 'role must be 1 to 64 characters.'],
        [{ role: 7 }, 'role must be a string.'],
        [{ meta: [] }, 'meta must be a JSON object.'],
        [{ emailVerified: 'yes' }, 'emailVerified must be a boolean.'],
      ] as const) {
        expect((await patch(path, body).expect(400)).body).toEqual({ error: 'validation_error', message });
      }
      await patch(`/admin/projects/${id}/environments/sandbox/users/${signed.user.id}`, { role: 'x' }).expect(404);
    });

    it('revokes one session of a user, then all of them', async () => {
      const { id, live } = await project('Sessions');
      const one = await signUp(live, 'lin@example.test');
      const two = await request(app).post('/api/auth/login').set('X-API-Key', live).send({ email: 'lin@example.test', password: 'correct horse battery' }).expect(200);
      const path = `/admin/projects/${id}/environments/production/users/${one.user.id}`;
      const sessions = (await get(path).expect(200)).body.data.user.sessions as { id: string; active: boolean }[];
      expect(sessions).toHaveLength(2);
      const first = sessions.find((s) => s.active)!;
      await del(`${path}/sessions/${first.id}`).expect(200);
      const after = (await get(path).expect(200)).body.data.user.sessions as { id: string; active: boolean }[];
      expect(after.filter((s) => s.active)).toHaveLength(1);
      const stranger = await signUp(live, 'stranger@example.test');
      const other = after.find((s) => s.active)!;
      expect((await del(`/admin/projects/${id}/environments/production/users/${stranger.user.id}/sessions/${other.id}`).expect(404)).body).toEqual({
        error: 'not_found',
        message: 'Session not found.',
      });
      expect((await post(`${path}/sessions/revoke-all`).expect(200)).body).toEqual({ data: { revoked: 1 } });
      for (const token of [one.refreshToken, two.body.data.refreshToken]) {
        await request(app).post('/api/auth/refresh').set('X-API-Key', live).send({ refreshToken: token }).expect(401);
      }
      await post(`/admin/projects/${id}/environments/production/users/${crypto.randomUUID()}/sessions/revoke-all`).expect(404);
    });

    it('creates users with and without a password, under the sign-up rules', async () => {
      const { id, live } = await project('Import');
      const base = `/admin/projects/${id}/environments/production/users`;
      const made = await post(base, { email: ' Imported@Example.test ', password: 'correct horse battery', role: 'admin', meta: { from: 'csv' }, emailVerified: true }).expect(201);
      expect(made.body.data.user).toMatchObject({ email: 'imported@example.test', role: 'admin', meta: { from: 'csv' }, emailVerified: true, banned: false });
      const login = await request(app).post('/api/auth/login').set('X-API-Key', live).send({ email: 'imported@example.test', password: 'correct horse battery' }).expect(200);
      expect(login.body.data.user.role).toBe('admin');
      const passwordless = await post(base, { email: 'nopass@example.test' }).expect(201);
      expect((await get(`${base}/${passwordless.body.data.user.id}`).expect(200)).body.data.user).toMatchObject({ hasPassword: false, role: 'user' });
      expect((await post(base, { email: 'imported@example.test' }).expect(409)).body.error).toBe('user_already_exists');
      expect((await post(base, { email: 'short@example.test', password: 'short' }).expect(400)).body.error).toBe('validation_error');
      expect((await post(base, { email: 'not-an-email' }).expect(400)).body).toEqual({ error: 'validation_error', message: 'email must be a valid e-mail address.' });
    });
  });
}

managementSuite(
  'SQLite',
  () => startRealApp(),
  (name, body) => describe(name, () => body('')),
);
managementSuite(
  'PostgreSQL',
  (url: string) => async () => {
    const database = await createTestDatabase(url);
    const real = await startRealApp({ DATABASE_URL: database.url });
    return {
      app: real.app,
      close: async () => {
        await real.close();
        await database.drop();
      },
    };
  },
  describeWithPostgres,
);
