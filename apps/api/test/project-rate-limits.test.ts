import request from 'supertest';
import { REAL_ADMIN_TOKEN, startRealApp, type RealApp } from './support/real-app';

// A project's own rate limits (the `rateLimits` setting): a Sandbox used by a customer's CI signs
// up more users an hour from one address than the service's limit allows, Production keeps it.
// The real composition on SQLite; the setting's storage runs on PostgreSQL in the storage contract.

describe('per-project rate limits through the admin API', () => {
  let real: RealApp;
  let projectId: string;
  let keys: { production: string; sandbox: string };
  const admin = () => ({
    patch: (body: object) => request(real.app).patch(`/admin/projects/${projectId}`).set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send(body),
  });
  const signUp = (key: string, i: number) =>
    request(real.app)
      .post('/api/auth/signup')
      .set('X-API-Key', key)
      .set('X-Svc-Client-Ip', '198.51.100.9')
      .send({ email: `ci-${i}-${key.slice(4, 8)}@example.test`, password: 'long enough' });

  beforeAll(async () => {
    real = await startRealApp({ SVC_RATE_LIMITS: JSON.stringify({ signup: { limit: 2 } }) });
    const created = await request(real.app).post('/admin/projects').set('Authorization', `Bearer ${REAL_ADMIN_TOKEN}`).send({ name: 'CI' }).expect(201);
    projectId = created.body.data.project.id;
    keys = created.body.data.apiKeys;
    expect(created.body.data.project.rateLimits).toBeNull();
  }, 30_000);
  afterAll(() => real?.close());

  it("raises one environment's limit at once; the other keeps the service's", async () => {
    // Resolved (and cached) before the change: the override must still apply at once.
    await signUp(keys.sandbox, 0).expect(201);
    const patched = await admin()
      .patch({ rateLimits: { sandbox: { signup: { limit: 5 } } } })
      .expect(200);
    expect(patched.body.data.project.rateLimits).toEqual({ sandbox: { signup: { limit: 5 } } });
    for (let i = 1; i < 5; i += 1) expect((await signUp(keys.sandbox, i).expect(201)).headers['ratelimit-policy']).toBe('5;w=3600');
    const refused = await signUp(keys.sandbox, 5).expect(429);
    expect(refused.body.error).toBe('rate_limited');
    // The embedded limiter's hour began at the first sign-up above: on a busy machine the refusal
    // comes a few seconds into it, so the reset is near an hour rather than exactly one.
    const [, reset] = /^limit=5, remaining=0, reset=(\d+)$/.exec(refused.headers.ratelimit) ?? [];
    expect(Number(reset)).toBeGreaterThan(3600 - 60);
    expect(Number(reset)).toBeLessThanOrEqual(3600);

    await signUp(keys.production, 0).expect(201);
    await signUp(keys.production, 1).expect(201);
    expect((await signUp(keys.production, 2).expect(429)).headers['ratelimit-policy']).toBe('2;w=3600');

    // Cleared: the service's limit again (the sandbox window already holds 5 hits).
    await admin().patch({ rateLimits: null }).expect(200);
    expect((await signUp(keys.sandbox, 6).expect(429)).headers['ratelimit-policy']).toBe('2;w=3600');
  });

  it("refuses overrides that are not limits of ours, with the contract's error", async () => {
    for (const [rateLimits, message] of [
      [{ sandbox: { signups: { limit: 5 } } }, 'rateLimits.sandbox.signups is not a limit'],
      [{ sandbox: { signup: { limit: 0 } } }, 'rateLimits.sandbox.signup.limit must be an integer from 1 to 1000000.'],
      [{ staging: {} }, 'rateLimits.staging is not an environment (production, sandbox).'],
      ['many', 'rateLimits must be an object by environment (production, sandbox).'],
    ] as const) {
      const res = await admin().patch({ rateLimits }).expect(400);
      expect(res.body.error).toBe('validation_error');
      expect(res.body.message).toContain(message);
    }
  });
});
