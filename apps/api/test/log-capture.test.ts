import { Writable } from 'node:stream';
import request from 'supertest';
import { createAuthService, InMemoryRateLimiter } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { ADMIN_TOKEN, createProject } from './helpers';

// docs/security.md#what-is-logged: logs never contain passwords, tokens, keys or full e-mail addresses. The whole
// flow runs with the logger at its most talkative level and every byte it writes is searched.

describe('log capture at level trace', () => {
  it('one line per request with id, route, status and latency; no password, token, key or full e-mail anywhere', async () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk, _e, done) => void (lines.push(String(chunk)), done()) });
    const deps = createInMemoryDeps();
    const app = createApp({
      auth: createAuthService(deps),
      rateLimiter: new InMemoryRateLimiter(deps.clock),
      logger: createLogger({ level: 'trace', destination }),
      config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) },
      ready: async () => {},
    });
    const http = request(app);
    const project = await createProject(app);
    const email = 'Ada.Lovelace@example.com';
    const password = 'analytical engine 1843';

    const signup = await http.post('/api/auth/signup').set('X-API-Key', project.live).set('X-Request-Id', 'req-signup').send({ email, password }).expect(201);
    const login = await http.post('/api/auth/login').set('X-API-Key', project.live).send({ email, password }).expect(200);
    await http
      .post('/api/auth/login')
      .set('X-API-Key', project.live)
      .send({ email, password: `${password}!` })
      .expect(401);
    const refreshed = await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: login.body.data.refreshToken }).expect(200);
    const me = (token: string) => http.get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${token}`);
    await me(refreshed.body.data.accessToken).expect(200);
    await http.post('/api/auth/refresh').set('X-API-Key', project.live).send({ refreshToken: login.body.data.refreshToken }).expect(401); // replay
    await me(signup.body.data.accessToken).expect(401); // every session revoked by the replay

    const output = lines.join('');
    const secrets = {
      password,
      apiKey: project.live,
      adminToken: ADMIN_TOKEN,
      signupAccess: signup.body.data.accessToken,
      signupRefresh: signup.body.data.refreshToken,
      loginAccess: login.body.data.accessToken,
      loginRefresh: login.body.data.refreshToken,
      refreshedAccess: refreshed.body.data.accessToken,
      refreshedRefresh: refreshed.body.data.refreshToken,
    };
    for (const [name, secret] of Object.entries(secrets)) expect({ name, found: output.includes(secret) }).toEqual({ name, found: false });
    // Tokens are long; a JWT's signature part alone must not appear either.
    expect(output).not.toContain(signup.body.data.accessToken.split('.')[2]);
    expect(output.toLowerCase()).not.toContain(email.toLowerCase());
    expect(output.toLowerCase()).not.toContain('ada.lovelace');

    const requests = lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request' && String(line.route).startsWith('/api/auth/'));
    expect(requests).toHaveLength(7);
    for (const line of requests) {
      expect(Object.keys(line).sort()).toEqual(['level', 'method', 'ms', 'msg', 'requestId', 'route', 'service', 'status', 'time'].sort());
      expect(typeof line.ms).toBe('number');
    }
    expect(requests[0]).toMatchObject({ requestId: 'req-signup', method: 'POST', route: '/api/auth/signup', status: 201 });
  });
});
