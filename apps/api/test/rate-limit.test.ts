import { InMemoryRateLimiter, type RateLimiter } from '@svc/core';
import { addressKey } from '../src/http/middleware/client-address';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { buildTestApp, createProject, signUp } from './helpers';

const rules = (overrides: Partial<typeof DEFAULT_RATE_LIMITS>) => ({ ...structuredClone(DEFAULT_RATE_LIMITS), ...overrides });

describe('rate limits', () => {
  it('signup: 10 per hour per IP, then 429 rate_limited with Retry-After and RateLimit headers', async () => {
    const { app, http, clock } = buildTestApp();
    const project = await createProject(app);
    for (let i = 0; i < 10; i += 1) {
      const ok = await http
        .post('/api/auth/signup')
        .set('X-API-Key', project.live)
        .send({ email: `u${i}@example.com`, password: 'long enough' })
        .expect(201);
      expect(ok.headers['ratelimit-policy']).toBe('10;w=3600');
      expect(ok.headers.ratelimit).toBe(`limit=10, remaining=${9 - i}, reset=3600`);
    }
    const res = await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'u10@example.com', password: 'long enough' }).expect(429);
    expect(res.body).toEqual({ error: 'rate_limited', message: 'Too many requests. Retry later with exponential backoff.' });
    expect(res.headers['retry-after']).toBe('3600');
    expect(res.headers['ratelimit-policy']).toBe('10;w=3600');
    expect(res.headers.ratelimit).toBe('limit=10, remaining=0, reset=3600');
    // another end user (named by the caller's server), the other environment, and a later window are not limited
    await http.post('/api/auth/signup').set('X-API-Key', project.live).set('X-Svc-Client-Ip', '203.0.113.7').send({ email: 'other@example.com', password: 'long enough' }).expect(201);
    await signUp(app, project.sandbox, 'u10@example.com');
    clock.advance(3600);
    await signUp(app, project.live, 'u10@example.com');
  });

  it('login: 10 per 15 minutes per IP + e-mail (normalised); another e-mail is not limited', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com', 'correct horse');
    const attempt = (email: string, password = 'wrong password') => http.post('/api/auth/login').set('X-API-Key', project.live).send({ email, password });
    for (let i = 0; i < 10; i += 1) await attempt(i % 2 ? 'ADA@example.com' : 'ada@example.com').expect(401);
    const limited = await attempt('ada@example.com', 'correct horse').expect(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBe('900');
    expect(limited.headers['ratelimit-policy']).toBe('10;w=900');
    await attempt('bob@example.com').expect(401);
  });

  it('refresh: limited per IP, values overridable by configuration', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ refresh: { limit: 2, windowSeconds: 60 } }) } });
    const project = await createProject(app);
    await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: 'a' }).expect(401);
    await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: 'b' }).expect(401);
    const res = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: 'c' }).expect(429);
    expect(res.body).toEqual({ error: 'rate_limited', message: 'Too many requests. Retry later with exponential backoff.' });
    expect(res.headers['ratelimit-policy']).toBe('2;w=60');
  });

  it('X-Svc-Client-Ip: IPv6 addresses share their /64; an invalid value falls back to the socket address', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ signup: { limit: 1, windowSeconds: 60 } }) } });
    const project = await createProject(app);
    const send = (ip: string, email: string) => http.post('/api/auth/signup').set('X-API-Key', project.live).set('X-Svc-Client-Ip', ip).send({ email, password: 'long enough' });
    await send('2001:db8:1:2::1', 'a@example.com').expect(201);
    await send('2001:db8:1:2:ffff::9', 'b@example.com').expect(429);
    await send('2001:db8:1:3::1', 'c@example.com').expect(201);
    await send('not-an-ip', 'd@example.com').expect(201);
    await send('also-bad', 'e@example.com').expect(429);
  });

  it("counts a request's limits in one call to the limiter (one Redis round trip), on the hot path and behind Express", async () => {
    const store = new InMemoryRateLimiter();
    const calls: string[][] = [];
    const recording: RateLimiter = {
      hit: (key, rule) => {
        calls.push([key]);
        return store.hit(key, rule);
      },
      hitAll: (hits) => {
        calls.push(hits.map((h) => h.key));
        return store.hitAll(hits);
      },
      refund: (key, rule, window) => store.refund(key, rule, window),
      reset: (key) => store.reset(key),
    };
    const { app, http } = buildTestApp({ rateLimiter: recording });
    const project = await createProject(app, { name: 'Test project', passwordResetUrl: 'https://app.example.test/reset' });
    await signUp(app, project.live, 'ada@example.com');
    calls.length = 0;
    await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.com', password: 'correct horse battery' }).expect(200);
    // The route's two limits in one call; the per-account limit, spent later for a client the
    // account does not know, in a call of its own.
    expect(calls.map((keys) => keys.map((key) => key.split(':')[1]))).toEqual([['loginAddress', 'login'], ['loginAccount']]);
    // A mail request (its hot path: a server's plain JSON) spends both of its limits in one call too.
    calls.length = 0;
    await http.post('/api/auth/password/reset').set('X-API-Key', project.live).send({ email: 'ada@example.com' }).expect(200);
    expect(calls.map((keys) => keys.map((key) => key.split(':')[1]))).toEqual([['mailAccount', 'passwordReset']]);
  });

  it('a failing limiter lets the request through and logs it (fail open)', async () => {
    // A limiter of its own without the optional hitAll: each limit's hit, as before.
    const broken: RateLimiter = {
      hit: async () => {
        throw new Error('redis down');
      },
      refund: async () => {},
      reset: async () => {},
    };
    const { app, http, logs } = buildTestApp({ rateLimiter: broken });
    const project = await createProject(app);
    await http.post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'a@example.com', password: 'long enough' }).expect(201);
    expect(logs.join('')).toContain('rate limiter failed; request let through');
  });
});

describe('addressKey', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0db8:0001:0002:0003:0004:0005:0006', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::192.0.2.33', '64:ff9b:0:0::/64'],
  ])('%s -> %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });
});
