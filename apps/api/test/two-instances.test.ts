import { randomBytes } from 'node:crypto';
import request, { type Response } from 'supertest';
import { describeWithRedis } from '@svc/adapters-redis/testing';
import { describeWithPostgres } from '@svc/adapters-typeorm/testing';
import type { ApiProcess } from './support/api-process';
import { useInstancePair } from './support/instance-pair';

// Several API processes on one PostgreSQL and one Redis behave as one service. Two
// real processes (tsx apps/api/src/main.ts) share a fresh schema and a fresh Redis key prefix;
// requests alternate between them.

const ADMIN_TOKEN = `admin-${randomBytes(24).toString('hex')}`;
const LIMITS = {
  signup: { limit: 3, windowSeconds: 3600 },
  login: { limit: 3, windowSeconds: 900 },
  refresh: { limit: 3, windowSeconds: 60 },
  magicLink: { limit: 3, windowSeconds: 3600 },
  passwordReset: { limit: 3, windowSeconds: 3600 },
  loginAccount: { limit: 8, windowSeconds: 3600 },
  magicLinkVerify: { limit: 2, windowSeconds: 900 },
};

describeWithPostgres('two API instances', (databaseUrl) => {
  describeWithRedis('on one PostgreSQL and one Redis', (redisUrl) => {
    const prefix = `svc:test:${randomBytes(6).toString('hex')}:`;
    let a: ApiProcess;
    let b: ApiProcess;
    let key: string;
    let projectId: string;

    const pair = useInstancePair({
      databaseUrl,
      adminToken: ADMIN_TOKEN,
      env: { REDIS_URL: redisUrl, SVC_REDIS_PREFIX: prefix, SVC_RATE_LIMITS: JSON.stringify(LIMITS) },
      redis: { url: redisUrl, prefix },
    });

    beforeAll(async () => {
      ({ a, b } = pair);
      const created = await request(a.url).post('/admin/projects').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({ name: 'Shared' }).expect(201);
      key = created.body.data.apiKeys.production;
      projectId = created.body.data.project.id;
    }, 120_000);

    const on = (api: ApiProcess) => request(api.url);
    const post = (api: ApiProcess, path: string, body: object, ip: string) => on(api).post(path).set('X-API-Key', key).set('X-Svc-Client-Ip', ip).send(body);

    /** Four requests alternating A, B, A, B: three are let through, the fourth is 429 with the headers. */
    async function expectRowAcrossInstances(send: (api: ApiProcess, i: number) => Promise<Response>, window: number) {
      const answers = [await send(a, 0), await send(b, 1), await send(a, 2), await send(b, 3)];
      expect(answers.slice(0, 3).map((res) => res.status)).not.toContain(429);
      expect(answers.map((res) => /^limit=3, remaining=(\d+), reset=\d+$/.exec(res.headers.ratelimit)?.[1])).toEqual(['2', '1', '0', '0']);
      const limited = answers[3];
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ error: 'rate_limited', message: 'Too many requests. Retry later with exponential backoff.' });
      expect(limited.headers['ratelimit-policy']).toBe(`3;w=${window}`);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(window);
      return answers;
    }

    it('a project created on A works on B, and tokens issued by one are accepted by the other', async () => {
      const signup = await post(b, '/api/auth/signup', { email: 'ada@example.com', password: 'correct horse' }, '10.0.0.1').expect(201);
      await on(a).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${signup.body.data.accessToken}`).expect(200);
      await post(a, '/api/auth/login', { email: 'ada@example.com', password: 'correct horse' }, '10.0.0.1').expect(200);
      const jwks = await on(b).get(`/api/projects/${projectId}/production/jwks.json`).expect(200);
      expect(jwks.body.keys).toHaveLength(1);
    });

    it('signup row: 3 per hour per address, counted across both; another address is another end user', async () => {
      await expectRowAcrossInstances((api, i) => post(api, '/api/auth/signup', { email: `s${i}@example.com`, password: 'long enough' }, '10.1.0.1'), 3600);
      await post(a, '/api/auth/signup', { email: 's4@example.com', password: 'long enough' }, '10.1.0.2').expect(201);
    });

    it('login row: 3 per 15 minutes per address + e-mail, counted across both', async () => {
      await expectRowAcrossInstances((api) => post(api, '/api/auth/login', { email: 'ada@example.com', password: 'wrong horse' }, '10.2.0.1'), 900);
      await post(b, '/api/auth/login', { email: 'bob@example.com', password: 'wrong horse' }, '10.2.0.1').expect(401);
      await post(b, '/api/auth/login', { email: 'ada@example.com', password: 'correct horse' }, '10.2.0.2').expect(200);
    });

    it('refresh row: 3 per minute per address, counted across both', async () => {
      await expectRowAcrossInstances((api, i) => post(api, '/api/auth/refresh', { refreshToken: `not-a-token-${i}` }, '10.3.0.1'), 60);
    });

    it('magic-link and password-reset rows: 3 per hour per address + e-mail, counted across both', async () => {
      await expectRowAcrossInstances((api) => post(api, '/api/auth/magic-link', { email: 'nobody@example.com', createIfNotExists: false }, '10.4.0.1'), 3600);
      await expectRowAcrossInstances((api) => post(api, '/api/auth/password/reset', { email: 'nobody@example.com' }, '10.5.0.1'), 3600);
    });

    it('loginAccount: one account from many named addresses is capped across both', async () => {
      const attempts = [];
      for (let i = 0; i < 7; i += 1) attempts.push((await post(i % 2 ? b : a, '/api/auth/login', { email: 'ada@example.com', password: `guess ${i}` }, `10.6.0.${i + 1}`)).status);
      // ada's earlier logins from addresses she had not signed in from count too (5 that passed the
      // per-address limits): loginAccount allows 8 per hour from clients the account does not know.
      expect(attempts).toEqual([401, 401, 401, 429, 429, 429, 429]);
      expect(attempts).not.toContain(500);
      // An address ada signed in from is not locked out, on either instance; a new one is.
      await post(b, '/api/auth/login', { email: 'ada@example.com', password: 'correct horse' }, '10.0.0.1').expect(200);
      await post(a, '/api/auth/login', { email: 'ada@example.com', password: 'correct horse' }, '10.2.0.2').expect(200);
      await post(a, '/api/auth/login', { email: 'ada@example.com', password: 'correct horse' }, '10.6.0.99').expect(429);
    });

    it('a refresh token rotated on A is replay-detected on B, which revokes the whole family', async () => {
      const { refreshToken } = (await post(a, '/api/auth/signup', { email: 'eve@example.com', password: 'long enough' }, '10.7.0.1').expect(201)).body.data;
      const rotated = (await post(a, '/api/auth/refresh', { refreshToken }, '10.7.0.1').expect(200)).body.data;
      const replay = await post(b, '/api/auth/refresh', { refreshToken }, '10.7.0.1').expect(401);
      expect(replay.body.error).toBe('invalid_refresh_token');
      await post(a, '/api/auth/refresh', { refreshToken: rotated.refreshToken }, '10.7.0.1').expect(401);
    });

    it('without an API key X-Svc-Client-Ip is ignored: key-less magic-link verify counts by the socket address on both', async () => {
      const verify = (api: ApiProcess, ip: string) =>
        on(api)
          .get('/api/auth/magic-link/verify')
          .set('X-Svc-Client-Ip', ip)
          .query({ token: 'x'.repeat(43), project: projectId });
      expect((await verify(a, '10.8.0.1')).status).toBe(401);
      expect((await verify(b, '10.8.0.2')).status).toBe(401);
      const limited = await verify(a, '10.8.0.3').expect(429);
      expect(limited.headers['ratelimit-policy']).toBe('2;w=900');
    });
  });
});
