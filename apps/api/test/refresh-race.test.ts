import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import type { ApiProcess } from './support/api-process';
import { useInstancePair } from './support/instance-pair';

// Browser tabs racing one refresh token, across two real API processes on one PostgreSQL: with a
// reuse grace window every racer gets the same successor and nothing is revoked; in strict mode
// (the contract's default) exactly one wins and the other is a replay that ends the session. Many
// trials, because a race that is lost only sometimes is still lost.

const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const TRIALS = 20;
const LIMITS = { signup: { limit: 1000, windowSeconds: 3600 }, refresh: { limit: 1000, windowSeconds: 60 } };

describeWithPostgres('concurrent refreshes of one token on two API processes', (databaseUrl) => {
  const pair = useInstancePair({ databaseUrl, adminToken: ADMIN_TOKEN, env: { SVC_RATE_LIMITS: JSON.stringify(LIMITS) } });
  let a: ApiProcess;
  let b: ApiProcess;
  beforeAll(() => {
    ({ a, b } = pair);
  });

  async function projectKey(settings: object): Promise<string> {
    const created = await request(a.url)
      .post('/admin/projects')
      .set('Authorization', `Bearer ${ADMIN_TOKEN}`)
      .send({ name: 'Race', ...settings })
      .expect(201);
    return created.body.data.apiKeys.production;
  }

  /** One trial: a fresh session, then its refresh token sent to A and B at once. */
  async function race(key: string, trial: number) {
    const post = (api: ApiProcess, path: string, body: object) => request(api.url).post(path).set('X-API-Key', key).send(body);
    const signedUp = (await post(a, '/api/auth/signup', { email: `tab${trial}@example.test`, password: 'long enough' }).expect(201)).body.data;
    const answers = await Promise.all([a, b].map((api) => post(api, '/api/auth/refresh', { refreshToken: signedUp.refreshToken })));
    return { post, answers };
  }

  it(`with a grace window: both tabs get 200 and the same successor, and the session lives (${TRIALS} trials)`, async () => {
    const key = await projectKey({ refreshReuseGraceSeconds: 10 });
    const lost: string[] = [];
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const { post, answers } = await race(key, trial);
      const statuses = answers.map((res) => res.status);
      const successors = new Set(answers.map((res) => res.body.data?.refreshToken));
      if (statuses.some((status) => status !== 200) || successors.size !== 1) {
        lost.push(`trial ${trial}: ${statuses.join('/')}`);
        continue;
      }
      // The shared successor rotates on; the session was not revoked by the race.
      const [successor] = successors;
      const next = await post(b, '/api/auth/refresh', { refreshToken: successor });
      if (next.status !== 200) lost.push(`trial ${trial}: the successor answered ${next.status}`);
    }
    expect(lost).toEqual([]);
  }, 120_000);

  it(`strict (no window): exactly one 200, the other a replay that ends the session (${TRIALS} trials)`, async () => {
    const key = await projectKey({});
    const wrong: string[] = [];
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const { post, answers } = await race(key, TRIALS + trial);
      const statuses = answers.map((res) => res.status).sort();
      if (statuses.join() !== '200,401') {
        wrong.push(`trial ${trial}: ${statuses.join('/')}`);
        continue;
      }
      const winner = answers.find((res) => res.status === 200)!.body.data;
      expect(answers.find((res) => res.status === 401)!.body.error).toBe('invalid_refresh_token');
      await post(a, '/api/auth/refresh', { refreshToken: winner.refreshToken }).expect(401);
      await request(b.url).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${winner.accessToken}`).expect(401);
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
