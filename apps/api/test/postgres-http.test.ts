import { Writable } from 'node:stream';
import request from 'supertest';
import { BcryptPasswordHasher, CommonPasswordFile, KeyEncryption, MasterKeySecretBox, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { OtpauthTotp, SimpleWebAuthnVerifier } from '@svc/adapters-mfa';
import { HttpOAuthProviderClient } from '@svc/adapters-oauth';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import { createAuthService, cryptoRandom, DEFAULT_PLAN_USER_LIMITS, InMemoryRateLimiter, systemClock } from '@svc/core';
import { RecordingWebhookTransport } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { ADMIN_TOKEN, admin, createProject, signUp } from './helpers';

// The foundation's concurrency guarantees, end to end over HTTP with the real adapters on
// PostgreSQL (the in-memory fakes make them too easy): plan limits, rotation, replay revocation.
describeWithPostgres('HTTP on PostgreSQL with the real adapters', (url) => {
  let storage: TypeormStorage;
  let drop: () => Promise<void>;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    const schema = await createTestSchema(url);
    drop = schema.drop;
    storage = await openStorage({ databaseUrl: url, schema: schema.schema, poolSize: 8 });
    const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 7).toString('base64') });
    const auth = createAuthService({
      settings: { issuer: 'http://svc.test', planUserLimits: DEFAULT_PLAN_USER_LIMITS },
      clock: systemClock,
      random: cryptoRandom,
      ...storage,
      keyFactory: new RsaSigningKeyFactory({ encryption }),
      tokens: new Rs256AccessTokenCodec({ signingKeys: storage.signingKeys, encryption }),
      passwords: new BcryptPasswordHasher({ cost: 4 }),
      secretBox: new MasterKeySecretBox({ masterKey: Buffer.alloc(32, 7) }),
      totp: new OtpauthTotp(),
      webauthn: new SimpleWebAuthnVerifier(),
      oauthClient: new HttpOAuthProviderClient(),
      commonPasswords: new CommonPasswordFile(),
      webhookTransport: new RecordingWebhookTransport(),
    });
    const limits = structuredClone(DEFAULT_RATE_LIMITS);
    limits.signup.limit = 1000;
    app = createApp({
      auth,
      rateLimiter: new InMemoryRateLimiter(),
      logger: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) }),
      config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: limits },
      ready: () => storage.ping(),
    });
  }, 60_000);

  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  it('lets exactly one of 10 concurrent production sign-ups through at limit - 1; sandbox is unaffected', async () => {
    const project = await createProject(app, { name: 'Limited', userLimit: 3 });
    await signUp(app, project.live, 'one@example.test');
    await signUp(app, project.live, 'two@example.test');
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request(app)
          .post('/api/auth/signup')
          .set('X-API-Key', project.live)
          .send({ email: `race${i}@example.test`, password: 'password 123' }),
      ),
    );
    const statuses = attempts.map((res) => res.status).sort();
    expect(statuses).toEqual([201, ...Array(9).fill(403)]);
    expect(attempts.filter((r) => r.status === 403).every((r) => r.body.error === 'plan_limit_reached')).toBe(true);
    const listed = await admin(app).get(`/admin/projects/${project.id}/environments/production/users?limit=50`).expect(200);
    expect(listed.body.data.users).toHaveLength(3);
    for (let i = 0; i < 5; i += 1) await signUp(app, project.sandbox, `sandbox${i}@example.test`);
  }, 60_000);

  it('answers exactly one 200 for two concurrent refreshes, and a replay kills every session', async () => {
    const project = await createProject(app);
    const first = await signUp(app, project.live, 'ada@example.test');
    const other = (await request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email: 'ada@example.test', password: 'correct horse battery' }).expect(200)).body.data;
    const [a, b] = await Promise.all([
      request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: first.refreshToken }),
      request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: first.refreshToken }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 401]);
    const loser = a.status === 401 ? a : b;
    expect(loser.body.error).toBe('invalid_refresh_token');
    // The losing request was a replay: every session of the user is gone, access tokens too.
    for (const token of [first.accessToken, other.accessToken]) {
      const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${token}`);
      expect(me.status).toBe(401);
      expect(me.body.error).toBe('invalid_token');
    }
    const winner = a.status === 200 ? a : b;
    await request(app).post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: winner.body.data.refreshToken }).expect(401);
  }, 60_000);

  it('refuses a sandbox token with the production key and the other way round', async () => {
    const project = await createProject(app);
    const live = await signUp(app, project.live, 'live@example.test');
    const sandbox = await signUp(app, project.sandbox, 'sbx@example.test');
    for (const [key, token] of [
      [project.live, sandbox.accessToken],
      [project.sandbox, live.accessToken],
    ]) {
      const me = await request(app).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${token}`);
      expect(me.status).toBe(401);
      expect(me.body).toEqual({ error: 'invalid_token', message: expect.any(String) });
    }
  }, 60_000);
});
