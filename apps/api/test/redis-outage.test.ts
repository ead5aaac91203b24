import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { connectRedis } from '@svc/adapters-redis';
import { describeWithRedis, OutageProxy, waitUntil } from '@svc/adapters-redis/testing';
import { createAuthService } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { buildRateLimitStore, type RateLimitStore } from '../src/composition/rate-limit-store';
import { ADMIN_TOKEN, createProject, signUp } from './helpers';

// Redis stopped in the middle of a test. The API is the real composition of
// the limiter (buildRateLimitStore) over a real Redis behind a relay that the test takes down.

describeWithRedis('rate limits through a Redis outage', (url) => {
  const prefix = `svc:test:${randomUUID()}:`;
  let proxy: OutageProxy;
  let store: RateLimitStore | undefined;

  beforeAll(async () => {
    proxy = await OutageProxy.start(url);
  });
  afterAll(async () => {
    await store?.close();
    await proxy.down();
    const direct = await connectRedis(url);
    const keys = await direct.keys(`${prefix}*`); // a handful of keys under a unique prefix
    if (keys.length) await direct.del(...keys);
    await direct.quit();
  });

  it('keeps answering (no 500), falls back to stricter local login counts, lets refresh go on, and resumes on Redis', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, done) => void (lines.push(String(c)), done()) }) });
    const deps = createInMemoryDeps();
    store = await buildRateLimitStore({ redisUrl: proxy.url(url), redisPrefix: prefix, logger, clock: deps.clock, redisTimeoutMs: 1000 });
    const rateLimits = { ...structuredClone(DEFAULT_RATE_LIMITS), login: { limit: 4, windowSeconds: 900 }, refresh: { limit: 2, windowSeconds: 60 } };
    const app = createApp({ auth: createAuthService(deps), rateLimiter: store.limiter, logger, config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits }, ready: async () => {} });
    const http = request(app);
    const project = await createProject(app);
    let { refreshToken } = await signUp(app, project.live, 'ada@example.com', 'correct horse');
    const login = (ip: string, email = 'ada@example.com') => http.post('/api/auth/login').set('X-API-Key', project.live).set('X-Svc-Client-Ip', ip).send({ email, password: 'wrong horse' });
    const refresh = async () => {
      const res = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken }).expect(200);
      refreshToken = res.body.data.refreshToken;
      return res;
    };

    // Warm-up: on a loaded machine the first command through the relay may miss its timeout and
    // rest the store; wait until logins are counted in Redis before the outage starts.
    let warm = 0;
    await waitUntil(async () => {
      deps.clock.advance(2);
      warm += 1;
      const res = await login(`203.0.113.${warm}`, `warm${warm}@example.com`);
      return res.headers['ratelimit-policy'] === '4;w=900';
    }, 10_000);
    const failingBefore = lines.filter((l) => l.includes('rate-limit store failing')).length;
    expect((await login('192.0.2.1').expect(401)).headers['ratelimit-policy']).toBe('4;w=900'); // hit 1, in Redis

    await proxy.down();
    // Local, at half the limit: two attempts, then 429 (never 500).
    await login('192.0.2.1').expect(401);
    expect((await login('192.0.2.1').expect(401)).headers['ratelimit-policy']).toBe('2;w=900');
    const refused = await login('192.0.2.1').expect(429);
    expect(refused.headers['retry-after']).toBeDefined();
    // Refresh goes on past its limit of 2: refusing it would sign users out for an outage of ours.
    for (let i = 0; i < 4; i += 1) await refresh();
    expect(lines.filter((l) => l.includes('rate-limit store failing')).length - failingBefore).toBe(1);

    await proxy.up();
    let probe = 0;
    await waitUntil(async () => {
      deps.clock.advance(2); // past the failover's rest after a failure
      probe += 1;
      const res = await login(`198.51.100.${probe}`, `probe${probe}@example.com`);
      return res.headers['ratelimit-policy'] === '4;w=900';
    }, 10_000);
    // Back on Redis: the count kept there before the outage goes on (hit 1, then 2..4, then 429).
    for (let i = 0; i < 3; i += 1) await login('192.0.2.1').expect(401);
    expect((await login('192.0.2.1').expect(429)).headers['ratelimit-policy']).toBe('4;w=900');
    expect(lines.some((l) => l.includes('rate-limit store answering again'))).toBe(true);
    const direct = await connectRedis(url);
    expect((await direct.keys(`${prefix}rl:login:${project.id}:*`)).length).toBeGreaterThan(0);
    await direct.quit();
  }, 20_000);
});
