import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { connectRedis } from '@svc/adapters-redis';
import { describeWithRedis } from '@svc/adapters-redis/testing';
import { createAuthService, InMemoryRateLimiter, type RateLimiter, type UserRepository } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { buildRateLimitStore } from '../src/composition/rate-limit-store';
import { ADMIN_TOKEN, createProject, signUp } from './helpers';

/**
 * The user table behind a switch: while `down`, every call fails the way a lost database
 * connection does, so the routes answer 5xx.
 */
function switchableUsers(users: UserRepository) {
  const state = { down: false };
  const proxy = new Proxy(users, {
    get(target, property, receiver) {
      const member = Reflect.get(target, property, receiver);
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        if (state.down) return Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
        return member.apply(target, args);
      };
    },
  });
  return { users: proxy, state };
}

/** The app over in-memory storage with a user table that can go down, and the given limiter. */
function outageApp(makeLimiter: (deps: ReturnType<typeof createInMemoryDeps>) => RateLimiter | Promise<RateLimiter>) {
  const base = createInMemoryDeps();
  const { users, state } = switchableUsers(base.users);
  const deps = { ...base, users };
  return (async () => {
    const app = createApp({
      auth: createAuthService(deps),
      rateLimiter: await makeLimiter(base),
      logger: createLogger({ level: 'silent' }),
      config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) },
      ready: async () => {},
    });
    return { app, database: state, http: request(app) };
  })();
}

async function outageThenRecovery(made: Awaited<ReturnType<typeof outageApp>>) {
  const { app, http, database } = made;
  const project = await createProject(app);
  await signUp(app, project.live, 'ada@example.com', 'correct horse');
  const login = (password = 'wrong horse') => http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password });
  const signup = (i: number) =>
    http
      .post('/api/auth/signup')
      .set('X-API-Key', project.live)
      .send({ email: `u${i}@example.com`, password: 'long enough' });

  database.down = true;
  const duringOutage = [];
  for (let i = 0; i < 12; i += 1) duringOutage.push((await login()).status);
  for (let i = 0; i < 12; i += 1) duringOutage.push((await signup(i)).status);
  expect(duringOutage).toEqual(Array(24).fill(500));

  // The database is back: every budget is whole, as if the outage had never been.
  database.down = false;
  for (let i = 0; i < 10; i += 1) await login().expect(401);
  await login('correct horse').expect(429);
  // One sign-up was made before the outage (10 an hour per address): nine more fit.
  for (let i = 0; i < 9; i += 1) await signup(100 + i).expect(201);
  await signup(200).expect(429);
}

describe('5xx answers do not use up rate-limit budget', () => {
  it('in-memory limiter: a database outage leaves login and sign-up budgets whole', async () => {
    await outageThenRecovery(await outageApp((deps) => new InMemoryRateLimiter(deps.clock)));
  });
});

describeWithRedis('5xx answers do not use up rate-limit budget in Redis', (url) => {
  const prefix = `svc:test:${randomUUID()}:`;
  let close: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await close?.();
    const direct = await connectRedis(url);
    const keys = await direct.keys(`${prefix}*`); // a handful of keys under a unique prefix
    if (keys.length) await direct.del(...keys);
    await direct.quit();
  });

  it('the container limiter (Redis behind the failover) refunds them', async () => {
    const made = await outageApp(async (deps) => {
      const lines = new Writable({ write: (_c, _e, done) => done() });
      const store = await buildRateLimitStore({ redisUrl: url, redisPrefix: prefix, logger: createLogger({ level: 'silent', destination: lines }), clock: deps.clock });
      close = store.close;
      return store.limiter;
    });
    await outageThenRecovery(made);
  });
});
