import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { describeWithRedis } from '@svc/adapters-redis/testing';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { pollUntil, type ApiProcess } from './support/api-process';
import { useInstancePair } from './support/instance-pair';

// Admin changes take effect on the instance that made them before it answers, and on every other
// instance within a second (docs/decisions.md, "Changes reach every instance"): two real API
// processes share one PostgreSQL schema, with notices through PostgreSQL LISTEN/NOTIFY, then
// through Redis pub/sub. Each change is made on A right after B has the old state in its caches
// (their TTL is 10 s, so only the notice can bring B up to date within the second).

const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const DEADLINE_MS = 1000;
const GENEROUS = { limit: 10_000 };
const LIMITS = { signup: GENEROUS, login: GENEROUS, refresh: GENEROUS, loginAccount: GENEROUS };
const PASSWORD = 'correct horse battery';

/** Calls `probe` until `done` holds of its answer, for at most DEADLINE_MS; returns the time it took. */
function withinDeadline(probe: () => Promise<Response>, done: (res: Response) => boolean): Promise<number> {
  return pollUntil(probe, done, { limitMs: DEADLINE_MS, everyMs: 20 });
}

function kidOf(accessToken: string): string {
  return (JSON.parse(Buffer.from(accessToken.split('.')[0], 'base64url').toString('utf8')) as { kid: string }).kid;
}

function propagationSuite(feed: 'postgres' | 'redis', databaseUrl: string, redisUrl?: string) {
  const prefix = `svc:test:${randomBytes(6).toString('hex')}:`;
  let a: ApiProcess;
  let b: ApiProcess;
  let projectId: string;
  let key: string;

  const pair = useInstancePair({
    databaseUrl,
    adminToken: ADMIN_TOKEN,
    env: { SVC_RATE_LIMITS: JSON.stringify(LIMITS), ...(redisUrl ? { REDIS_URL: redisUrl, SVC_REDIS_PREFIX: prefix } : {}) },
    redis: redisUrl ? { url: redisUrl, prefix } : undefined,
  });

  beforeAll(async () => {
    ({ a, b } = pair);
    const created = await admin(a).post('/admin/projects').send({ name: 'Replicated', plan: 'PRO' }).expect(201);
    projectId = created.body.data.project.id;
    key = created.body.data.apiKeys.production;
  }, 120_000);

  const admin = (api: ApiProcess) => ({
    post: (path: string) => request(api.url).post(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
    patch: (path: string) => request(api.url).patch(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
    delete: (path: string) => request(api.url).delete(path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
  });
  const branding = (api: ApiProcess, apiKey = key) => request(api.url).get('/api/auth/sdk/branding').set('X-API-Key', apiKey);
  const logIn = (api: ApiProcess, email: string) => request(api.url).post('/api/auth/login').set('X-API-Key', key).send({ email, password: PASSWORD });
  const me = (api: ApiProcess, accessToken: string) => request(api.url).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${accessToken}`);

  it(`both instances carry notices through ${feed}`, () => {
    for (const api of [a, b]) expect(api.output()).toContain(`"changes":"${feed}"`);
  });

  it('an API-key revocation: refused at once on A, within a second on B', async () => {
    const extra = await admin(a).post(`/admin/projects/${projectId}/api-keys`).send({ environment: 'production' }).expect(201);
    await branding(b, extra.body.data.key).expect(200);
    await branding(a, extra.body.data.key).expect(200);
    await admin(a).delete(`/admin/projects/${projectId}/api-keys/${extra.body.data.id}`).expect(200);
    expect((await branding(a, extra.body.data.key)).body).toMatchObject({ error: 'invalid_api_key' });
    await withinDeadline(
      () => branding(b, extra.body.data.key),
      (res) => res.status === 401 && res.body.error === 'invalid_api_key',
    );
  });

  it('a plan downgrade: in force at once on A, within a second on B', async () => {
    expect((await branding(b).expect(200)).body.data).toEqual({ poweredByService: false });
    expect((await branding(a).expect(200)).body.data).toEqual({ poweredByService: false });
    await admin(a).patch(`/admin/projects/${projectId}`).send({ plan: 'FREE' }).expect(200);
    expect((await branding(a).expect(200)).body.data).toEqual({ poweredByService: true });
    await withinDeadline(
      () => branding(b),
      (res) => res.status === 200 && res.body.data.poweredByService === true,
    );
  });

  it('a signing-key rotation: new tokens signed with the new key at once on A, within a second on B', async () => {
    const email = `rotate-${feed}@example.test`;
    await request(b.url).post('/api/auth/signup').set('X-API-Key', key).send({ email, password: PASSWORD }).expect(201);
    const before = kidOf((await logIn(b, email).expect(200)).body.data.accessToken);
    expect(kidOf((await logIn(a, email).expect(200)).body.data.accessToken)).toBe(before);
    const rotated = await admin(a).post(`/admin/projects/${projectId}/environments/production/signing-keys/rotate`).expect(200);
    const kid: string = rotated.body.data.kid;
    expect(kid).not.toBe(before);
    expect(kidOf((await logIn(a, email).expect(200)).body.data.accessToken)).toBe(kid);
    await withinDeadline(
      () => logIn(b, email),
      (res) => res.status === 200 && kidOf(res.body.data.accessToken) === kid,
    );
  });

  it('a ban: refused at once on A, within a second on B', async () => {
    const email = `ban-${feed}@example.test`;
    const signedUp = await request(a.url).post('/api/auth/signup').set('X-API-Key', key).send({ email, password: PASSWORD }).expect(201);
    const onB = (await logIn(b, email).expect(200)).body.data.accessToken;
    const onA = (await logIn(a, email).expect(200)).body.data.accessToken;
    await me(b, onB).expect(200);
    await admin(a).post(`/admin/projects/${projectId}/environments/production/users/${signedUp.body.data.user.id}/ban`).expect(200);
    expect((await me(a, onA)).body).toMatchObject({ error: 'user_banned' });
    expect((await logIn(a, email)).body).toMatchObject({ error: 'user_banned' });
    await withinDeadline(
      () => me(b, onB),
      (res) => res.status === 403 && res.body.error === 'user_banned',
    );
    await withinDeadline(
      () => logIn(b, email),
      (res) => res.status === 403 && res.body.error === 'user_banned',
    );
  });
}

describeWithPostgres('admin changes reach every instance', (databaseUrl) => {
  describe('through PostgreSQL LISTEN/NOTIFY', () => propagationSuite('postgres', databaseUrl));
  describeWithRedis('through Redis pub/sub', (redisUrl) => propagationSuite('redis', databaseUrl, redisUrl));
});
