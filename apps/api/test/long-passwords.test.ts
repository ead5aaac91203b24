import { Writable } from 'node:stream';
import request from 'supertest';
import { BcryptPasswordHasher } from '@svc/adapters-crypto';
import { createAuthService, InMemoryRateLimiter } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { ADMIN_TOKEN, createProject } from './helpers';

// bcrypt reads only 72 bytes; every byte must count (docs/security.md#passwords). Proven over HTTP with bcrypt.
describe('passwords longer than 72 bytes (real bcrypt)', () => {
  const deps = createInMemoryDeps({ passwords: new BcryptPasswordHasher({ cost: 4 }) });
  const app = createApp({
    auth: createAuthService(deps),
    rateLimiter: new InMemoryRateLimiter(deps.clock),
    logger: createLogger({ level: 'warn', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) },
    ready: async () => {},
  });

  it.each([
    ['ASCII', 'a'.repeat(72)],
    ['multi-byte UTF-8', 'ü'.repeat(36)],
  ])('two passwords sharing their first 72 bytes (%s) do not both sign in', async (_kind, prefix) => {
    const project = await createProject(app);
    const email = `${_kind.length}@example.test`;
    const login = (password: string) => request(app).post('/api/auth/login').set('X-API-Key', project.live).send({ email, password });
    await request(app)
      .post('/api/auth/signup')
      .set('X-API-Key', project.live)
      .send({ email, password: `${prefix}-first` })
      .expect(201);
    expect((await login(`${prefix}-second`)).body.error).toBe('invalid_credentials');
    expect((await login(prefix)).status).toBe(401);
    expect((await login(`${prefix}-first`)).status).toBe(200);
  });
});
