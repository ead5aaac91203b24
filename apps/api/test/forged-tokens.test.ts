import { createHmac } from 'node:crypto';
import { Writable } from 'node:stream';
import request from 'supertest';
import { KeyEncryption, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { createAuthService, InMemoryRateLimiter } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { ADMIN_TOKEN, admin, createProject, signUp } from './helpers';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const part = (token: string, i: number) => JSON.parse(Buffer.from(token.split('.')[i], 'base64url').toString('utf8'));

// Classic JWT attacks against /me, with the production RS256 codec (the fakes would prove nothing).
describe('forged access tokens at GET /api/auth/me (real RS256 codec)', () => {
  const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 3).toString('base64') });
  const base = createInMemoryDeps();
  const deps = {
    ...base,
    keyFactory: new RsaSigningKeyFactory({ encryption }),
    tokens: new Rs256AccessTokenCodec({ signingKeys: base.signingKeys, encryption, clock: base.clock }),
  };
  const app = createApp({
    auth: createAuthService(deps),
    rateLimiter: new InMemoryRateLimiter(base.clock),
    logger: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) },
    ready: async () => {},
  });
  const me = (key: string, token: string) => request(app).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${token}`);

  let project: Awaited<ReturnType<typeof createProject>>;
  let token: string;
  let publicPem: string;

  beforeAll(async () => {
    project = await createProject(app);
    token = (await signUp(app, project.live)).accessToken;
    publicPem = (await admin(app).get(`/admin/projects/${project.id}/environments/production/public-key`).expect(200)).body.data.publicKey;
    await me(project.live, token).expect(200);
  });

  const expectInvalid = async (forged: string) => {
    const res = await me(project.live, forged);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', message: expect.any(String) });
  };

  it('refuses alg "none"', async () => {
    const header = { ...part(token, 0), alg: 'none' };
    await expectInvalid(`${b64(header)}.${token.split('.')[1]}.`);
    await expectInvalid(`${b64({ alg: 'none', typ: 'JWT' })}.${token.split('.')[1]}.`);
  });

  it('refuses HS256 signed with the public key as the HMAC secret', async () => {
    const input = `${b64({ ...part(token, 0), alg: 'HS256' })}.${token.split('.')[1]}`;
    const signature = createHmac('sha256', publicPem).update(input).digest('base64url');
    await expectInvalid(`${input}.${signature}`);
  });

  it("refuses a token whose kid names another project's key, even when that key signed it", async () => {
    const other = await createProject(app, { name: 'Other' });
    const foreign = (await signUp(app, other.live)).accessToken;
    const claims = { ...part(foreign, 1), aud: project.id };
    await expectInvalid(`${foreign.split('.')[0]}.${b64(claims)}.${foreign.split('.')[2]}`);
    await expectInvalid(foreign);
  });

  it('refuses an unknown kid, a tampered payload and a tampered signature', async () => {
    const [h, p, s] = token.split('.');
    await expectInvalid(`${b64({ ...part(token, 0), kid: 'unknown-kid' })}.${p}.${s}`);
    await expectInvalid(`${h}.${b64({ ...part(token, 1), role: 'admin' })}.${s}`);
    await expectInvalid(`${h}.${p}.${s.slice(0, -4)}AAAA`);
    await expectInvalid(`${h}.${p}`);
  });
});
