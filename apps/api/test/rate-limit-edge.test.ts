import { DEFAULT_RATE_LIMITS, type RateLimitRules } from '../src/http/middleware/rate-limit-rules';
import { buildTestApp, createProject, signUp } from './helpers';

// The limits the contract's table lacks (rate-limit-rules.ts), and who may name the client address.

const rules = (overrides: Partial<RateLimitRules>): RateLimitRules => ({ ...structuredClone(DEFAULT_RATE_LIMITS), ...overrides });

describe('limits beyond the contract table', () => {
  it('loginAddress: one address spraying many accounts is stopped, whatever the e-mails', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ loginAddress: { limit: 3, windowSeconds: 900 } }) } });
    const project = await createProject(app);
    const attempt = (i: number, ip = '198.51.100.1') =>
      http
        .post('/api/auth/login')
        .set('X-API-Key', project.live)
        .set('X-Svc-Client-Ip', ip)
        .send({ email: `victim${i}@example.com`, password: 'Summer2026!' });
    for (let i = 0; i < 3; i += 1) await attempt(i).expect(401);
    const limited = await attempt(3).expect(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers['ratelimit-policy']).toBe('3;w=900');
    expect(limited.headers['retry-after']).toBe('900');
    await attempt(4, '198.51.100.2').expect(401);
  });

  it('loginAccount: one account guessed from many named addresses is stopped (a leaked key cannot brute-force it)', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ loginAccount: { limit: 4, windowSeconds: 3600 } }) } });
    const project = await createProject(app);
    await signUp(app, project.live, 'ada@example.com', 'correct horse');
    const attempt = (i: number, email = 'ada@example.com', password = `guess-${i}`) =>
      http.post('/api/auth/login').set('X-API-Key', project.live).set('X-Svc-Client-Ip', `203.0.113.${i}`).send({ email, password });
    for (let i = 0; i < 4; i += 1) await attempt(i).expect(401);
    const limited = await attempt(4, 'ADA@example.com', 'correct horse').expect(429);
    expect(limited.headers['ratelimit-policy']).toBe('4;w=3600');
    expect(limited.headers['retry-after']).toBe('3600');
    await attempt(5, 'bob@example.com').expect(401);
  });

  it('mailAccount: one inbox gets at most N mails an hour from magic link and reset together, whatever the addresses', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ mailAccount: { limit: 4, windowSeconds: 3600 } }) } });
    const project = await createProject(app, { name: 'Mail', magicLinkUrl: 'https://app.example/magic', passwordResetUrl: 'https://app.example/reset' });
    const send = (path: string, i: number, email = 'ada@example.com') => http.post(path).set('X-API-Key', project.live).set('X-Svc-Client-Ip', `203.0.113.${i}`).send({ email });
    for (let i = 0; i < 2; i += 1) await send('/api/auth/magic-link', i).expect(200);
    for (let i = 2; i < 4; i += 1) await send('/api/auth/password/reset', i).expect(200);
    const limited = await send('/api/auth/magic-link', 4, 'ADA@Example.com').expect(429);
    expect(limited.body.error).toBe('rate_limited');
    expect(limited.headers['ratelimit-policy']).toBe('4;w=3600');
    expect((await send('/api/auth/password/reset', 5).expect(429)).headers['retry-after']).toBe('3600');
    // Another inbox, and the same inbox in the other environment, have budgets of their own.
    await send('/api/auth/magic-link', 6, 'bob@example.com').expect(200);
    await http.post('/api/auth/magic-link').set('X-API-Key', project.sandbox).send({ email: 'ada@example.com' }).expect(200);
  });

  it('login headers report the tightest of its three limits', async () => {
    const { app, http } = buildTestApp();
    const project = await createProject(app);
    const res = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'a@example.com', password: 'wrong password' }).expect(401);
    expect(res.headers['ratelimit-policy']).toBe('10;w=900'); // login (10) beats loginAccount (50) and loginAddress (100)
    expect(res.headers.ratelimit).toBe('limit=10, remaining=9, reset=900');
  });

  it('passwordUpdate: limited per address', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ passwordUpdate: { limit: 2, windowSeconds: 3600 } }) } });
    const project = await createProject(app);
    const update = (ip: string) => http.post('/api/auth/password/update').set('X-API-Key', project.live).set('X-Svc-Client-Ip', ip).send({ token: 'not-a-reset-token', newPassword: 'long enough' });
    await update('192.0.2.1').expect(401);
    await update('192.0.2.1').expect(401);
    expect((await update('192.0.2.1').expect(429)).headers['ratelimit-policy']).toBe('2;w=3600');
    await update('192.0.2.2').expect(401);
  });

  it('twoFactorVerify: a few guesses per challenge, from wherever they come', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ twoFactorVerify: { limit: 3, windowSeconds: 300 } }) } });
    const project = await createProject(app);
    const verify = (i: number, twoFactorToken = 'challenge-a') =>
      http.post('/api/auth/2fa/totp/verify').set('X-API-Key', project.live).set('X-Svc-Client-Ip', `203.0.113.${i}`).send({ twoFactorToken, code: '123456' });
    for (let i = 0; i < 3; i += 1) expect((await verify(i)).status).not.toBe(429);
    expect((await verify(3).expect(429)).headers['ratelimit-policy']).toBe('3;w=300');
    expect((await verify(4, 'challenge-b')).status).not.toBe(429);
  });

  it('magicLinkVerify: counted by the socket address; X-Svc-Client-Ip is ignored without an API key', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ magicLinkVerify: { limit: 2, windowSeconds: 900 } }) } });
    const project = await createProject(app);
    const verify = (ip: string) =>
      http
        .get('/api/auth/magic-link/verify')
        .set('X-Svc-Client-Ip', ip)
        .query({ token: 'x'.repeat(43), project: project.id });
    await verify('203.0.113.1').expect(401);
    await verify('203.0.113.2').expect(401);
    const limited = await verify('203.0.113.3').expect(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: 'Too many requests. Retry later with exponential backoff.' });
    expect(limited.headers['ratelimit-policy']).toBe('2;w=900');
  });

  it('a request refused for its key is not counted, and its X-Svc-Client-Ip is never read', async () => {
    const { app, http } = buildTestApp({ config: { rateLimits: rules({ signup: { limit: 1, windowSeconds: 3600 } }) } });
    const project = await createProject(app);
    const send = (key: string | null) => {
      const req = http.post('/api/auth/signup').set('X-Svc-Client-Ip', '203.0.113.9');
      return (key ? req.set('X-API-Key', key) : req).send({ email: 'a@example.com', password: 'long enough' });
    };
    await send(null).expect(401);
    await send('svc_live_unknown').expect(401);
    await send(project.live).expect(201);
  });
});
