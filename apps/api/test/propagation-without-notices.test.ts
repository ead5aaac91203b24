import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import request, { type Response } from 'supertest';
import { describeWithRedis } from '@svc/adapters-redis/testing';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { pollUntil, type ApiProcess } from './support/api-process';
import { useInstancePair } from './support/instance-pair';

// The change feed down for one instance (docs/operating.md, "Scaling out"): two real API processes
// on one PostgreSQL schema, A with Redis, B with REDIS_URL on a port where nothing listens, so no
// notice reaches B and none leaves it. What the other instance caches then lives at most the
// caches' 10 s bound; what no instance caches (bans, sessions) is in force everywhere at once.

const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const PASSWORD = 'correct horse battery';
/** The caches' TTL (docs/decisions.md, "Changes reach every instance"). */
const CACHE_BOUND_MS = 10_000;
/** A poll's own round trip and a loaded machine's slack on top of the bound. */
const SLACK_MS = 1500;

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `probe` until `done` holds; fails past `limitMs`. Returns the time it took. */
function until(probe: () => Promise<Response>, done: (res: Response) => boolean, limitMs: number): Promise<number> {
  return pollUntil(probe, done, { limitMs, everyMs: 100 });
}

describeWithPostgres('admin changes while one instance has no change feed', (databaseUrl) => {
  describeWithRedis('B cannot reach Redis', (redisUrl) => {
    const prefix = `svc:test:${randomBytes(6).toString('hex')}:`;
    let a: ApiProcess;
    let b: ApiProcess;
    let projectId: string;
    let key: string;

    const pair = useInstancePair({
      databaseUrl,
      adminToken: ADMIN_TOKEN,
      env: { REDIS_URL: redisUrl, SVC_REDIS_PREFIX: prefix },
      envB: async () => ({ REDIS_URL: `redis://127.0.0.1:${await deadPort()}` }),
      redis: { url: redisUrl, prefix },
    });

    beforeAll(async () => {
      ({ a, b } = pair);
      const created = await admin(a).post('/admin/projects').send({ name: 'Feedless' }).expect(201);
      projectId = created.body.data.project.id;
      key = created.body.data.apiKeys.production;
    }, 120_000);

    const admin = (api: ApiProcess) => ({
      post: (path: string) => request(api.url).post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
      delete: (path: string) => request(api.url).delete(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
    });
    const branding = (api: ApiProcess, apiKey: string) => request(api.url).get('/api/auth/sdk/branding').set('X-API-Key', apiKey);
    const refused = (res: Response) => res.status === 401 && res.body.error === 'invalid_api_key';

    it('an API key revoked on either side stops working on the other within the 10 s cache bound', async () => {
      // One project per direction: an instance's own change drops its cache of the whole project.
      const keyOf = async (api: ApiProcess) => {
        const project = (await admin(api).post('/admin/projects').send({ name: 'One way' }).expect(201)).body.data;
        return { projectId: project.project.id as string, ...(await admin(api).post(`/admin/projects/${project.project.id}/api-keys`).send({ environment: 'production' }).expect(201)).body.data };
      };
      const [one, two] = await Promise.all([keyOf(a), keyOf(b)]);
      // Each instance has the key it will not hear about in its cache.
      await branding(b, one.key).expect(200);
      await branding(a, two.key).expect(200);
      const revoked = Date.now();
      await admin(a).delete(`/admin/projects/${one.projectId}/api-keys/${one.id}`).expect(200);
      await admin(b).delete(`/admin/projects/${two.projectId}/api-keys/${two.id}`).expect(200);
      // In force at once where it was made...
      expect(refused(await branding(a, one.key))).toBe(true);
      expect(refused(await branding(b, two.key))).toBe(true);
      // ...and on the other side within the bound, not later (no notice travels: not at once either).
      const waited = await Promise.all([until(() => branding(b, one.key), refused, CACHE_BOUND_MS + SLACK_MS), until(() => branding(a, two.key), refused, CACHE_BOUND_MS + SLACK_MS)]);
      expect(Date.now() - revoked).toBeLessThan(CACHE_BOUND_MS + SLACK_MS);
      for (const ms of waited) expect(ms).toBeGreaterThan(1000);
    }, 30_000);

    it('a ban and an ended session are in force on the other instance at once: nothing caches them', async () => {
      const signedUp = await request(a.url).post('/api/auth/signup').set('X-API-Key', key).send({ email: 'ada@example.test', password: PASSWORD }).expect(201);
      const onB = (await request(b.url).post('/api/auth/login').set('X-API-Key', key).send({ email: 'ada@example.test', password: PASSWORD }).expect(200)).body.data;
      await request(b.url).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${onB.accessToken}`).expect(200);
      // A session ended on A: its refresh token is dead on B in B's very next request.
      await request(a.url).post('/api/auth/logout').set('X-API-Key', key).send({ refreshToken: signedUp.body.data.refreshToken }).expect(200);
      expect((await request(b.url).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken: signedUp.body.data.refreshToken })).body.error).toBe('invalid_refresh_token');
      // A ban made on A: refused on B in its very next request.
      await admin(a).post(`/admin/projects/${projectId}/environments/production/users/${signedUp.body.data.user.id}/ban`).expect(200);
      expect((await request(b.url).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${onB.accessToken}`)).body.error).toBe('user_banned');
      expect((await request(b.url).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken: onB.refreshToken })).body.error).toBe('invalid_refresh_token');
    }, 30_000);
  });
});
