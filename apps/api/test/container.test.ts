import { createPublicKey, verify } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createApp } from '../src/http/app';
import { loadConfig } from '../src/composition/config';
import { buildContainer, type Container } from '../src/composition/container';
import { readDemoProject, resolveSecrets, type ResolvedSecrets } from '../src/composition/dev-secrets';
import { announceFirstStart } from '../src/composition/first-start';
import { createLogger } from '../src/composition/logger';

// The real composition: SQLite storage, bcrypt (lowest cost), RS256 with encrypted keys.
describe('container over SQLite and the real crypto adapters', () => {
  let dir: string;
  let secrets: ResolvedSecrets;
  let container: Container;
  const logger = createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-container-'));
    secrets = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4', SVC_BASE_URL: 'https://auth.example.test' }));
    container = await buildContainer(secrets.config);
  }, 30_000);

  afterAll(async () => {
    await container?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('first start creates the demo project once and keeps its keys', async () => {
    const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      expect(await container.isEmpty()).toBe(true);
      await announceFirstStart(container, secrets, logger);
      const demo = await readDemoProject(dir);
      expect(demo?.apiKeys.production).toMatch(/^svc_live_/);
      expect(String(write.mock.calls[0][0])).toContain(demo!.apiKeys.production);
      expect(await container.isEmpty()).toBe(false);
      await announceFirstStart(container, { ...secrets, generated: { adminToken: false, masterKey: false } }, logger);
      expect((await readDemoProject(dir))?.projectId).toBe(demo!.projectId);
    } finally {
      write.mockRestore();
    }
  }, 30_000);

  it('serves sign-up, /me, refresh and a JWKS that verifies the access token', async () => {
    const demo = (await readDemoProject(dir))!;
    const app = createApp({ ...container, logger, config: secrets.config });
    const key = demo.apiKeys.production;
    await request(app).get('/readyz').expect(200);
    const signup = await request(app).post('/api/auth/signup').set('X-API-Key', key).send({ email: 'ada@example.com', password: 'correct horse' }).expect(201);
    const { accessToken, refreshToken } = signup.body.data;
    await request(app).post('/api/auth/login').set('X-API-Key', key).send({ email: 'ada@example.com', password: 'correct horsE' }).expect(401);
    await request(app).get('/api/auth/me').set('X-API-Key', key).set('Authorization', `Bearer ${accessToken}`).expect(200);
    await request(app).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken }).expect(200);
    await request(app).post('/api/auth/refresh').set('X-API-Key', key).send({ refreshToken }).expect(401);

    const jwks = await request(app).get(`/api/projects/${demo.projectId}/production/jwks.json`).expect(200);
    const [header, payload, signature] = accessToken.split('.');
    const kid = JSON.parse(Buffer.from(header, 'base64url').toString()).kid;
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === kid);
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toMatchObject({ iss: 'https://auth.example.test', aud: demo.projectId, env: 'production' });
  }, 30_000);
});
