import { randomUUID } from 'node:crypto';
import { describeWhenAvailable } from '@svc/core/testing';
import { hasRedisServer, startPrivateRedis, type PrivateRedis } from './support/private-redis';
import { listenRealApp, REAL_ADMIN_TOKEN, type ListeningApp } from './support/real-app';

// A Redis that is paused (CLIENT PAUSE: connections stay open, nothing is answered) must cost a
// rate-limited request at most the limiter's decision time (SVC_REDIS_TIMEOUT_MS, default
// 100 ms) before the per-process fallback decides. The Redis is a server of this test's own: a
// pause of the shared one would stall every other suite's Redis.

const PAUSE_MS = 4000;
/** Room for a sign-in (bcrypt cost 4), the event loop and a loaded machine on top of the decision time. */
const SLACK_MS = 200;

interface Attempt {
  status: number;
  ms: number;
  policy: string | null;
}

describeWhenAvailable('rate limits while Redis is paused', 'a redis-server binary', hasRedisServer() ? null : 'redis-server is not on PATH', () => {
  let redis: PrivateRedis;
  const apps: ListeningApp[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
  }, 20_000);
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await redis?.stop();
  });

  async function start(env: Record<string, string> = {}) {
    const app = await listenRealApp({ REDIS_URL: redis.url, SVC_REDIS_PREFIX: `svc:test:${randomUUID()}:`, ...env });
    apps.push(app);
    const created = await fetch(`${app.url}/admin/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${REAL_ADMIN_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Paused' }),
    });
    const key = ((await created.json()) as { data: { apiKeys: { production: string } } }).data.apiKeys.production;
    let n = 0;
    // A wrong password: rate-limited like every sign-in, answered 401 after one cheap bcrypt.
    return async (): Promise<Attempt> => {
      const started = Date.now();
      const res = await fetch(`${app.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `nobody${(n += 1)}@example.test`, password: 'wrong horse battery' }),
        signal: AbortSignal.timeout(5000),
      });
      await res.arrayBuffer();
      return { status: res.status, ms: Date.now() - started, policy: res.headers.get('ratelimit-policy') };
    };
  }

  /** Sign-in attempts one after another, 150 ms apart, for as long as the pause lasts. */
  async function duringPause(login: () => Promise<Attempt>): Promise<Attempt[]> {
    await redis.admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
    const until = Date.now() + PAUSE_MS - 500;
    const attempts: Attempt[] = [];
    while (Date.now() < until) {
      attempts.push(await login());
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await redis.admin.call('CLIENT', 'UNPAUSE');
    return attempts;
  }

  it('decides within ~100 ms by default, with the stricter local limits, and goes back to Redis after', async () => {
    const login = await start();
    const before = await login();
    expect(before.status).toBe(401);

    const attempts = await duringPause(login);
    expect(attempts.map((a) => a.status).every((status) => status === 401)).toBe(true);
    // Redis was asked and did not answer: the fallback's stricter limits are in the headers.
    expect(attempts.some((a) => a.policy !== before.policy)).toBe(true);
    const slowest = Math.max(...attempts.map((a) => a.ms));
    expect(slowest).toBeLessThan(100 + SLACK_MS);

    // Unpaused: counted in Redis again (the configured limits), within the failover's rest.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await login()).policy).toBe(before.policy);
  }, 30_000);

  it('waits SVC_REDIS_TIMEOUT_MS when configured otherwise', async () => {
    const login = await start({ SVC_REDIS_TIMEOUT_MS: '250' });
    await login();
    const attempts = await duringPause(login);
    const slowest = Math.max(...attempts.map((a) => a.ms));
    expect(slowest).toBeGreaterThanOrEqual(230);
    expect(slowest).toBeLessThan(250 + SLACK_MS);
  }, 30_000);
});
