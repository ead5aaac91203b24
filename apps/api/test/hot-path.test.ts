import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { AuthError, createAuthService } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { installHotPaths } from '../src/http/hot-path';
import { meHotPath } from '../src/http/routes/auth-me';
import { createLogger } from '../src/composition/logger';
import { createMetrics } from '../src/http/metrics';
import { SECURITY_HEADERS } from '../src/http/middleware/security-headers';
import { admin, buildTestApp, createProject, signUp } from './helpers';

/** Headers node adds per connection or per answer; everything else must match exactly. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

function comparable(headers: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_ANSWER.has(name)));
}

/** A signed-up user of a fresh in-memory app; `me(path)` calls GET path with the user's key and token. */
async function signedIn() {
  const built = buildTestApp();
  const project = await createProject(built.app);
  const session = await signUp(built.app, project.live, 'ada@example.com');
  const me = (path = '/api/auth/me') => built.http.get(path).set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`);
  return { ...built, project, session, me };
}

describe('GET /api/auth/me on the hot path', () => {
  it('answers exactly what the Express route answers: status, every header, body', async () => {
    const { me } = await signedIn();
    const hot = await me().expect(200);
    // A query string sends the same request through Express (the hot path takes the exact path
    // only); a bare `?` would not do, supertest drops it.
    const viaExpress = await me('/api/auth/me?via=express').expect(200);
    expect(hot.text).toBe(viaExpress.text);
    expect(comparable(hot.headers)).toEqual(comparable(viaExpress.headers));
    expect(Object.keys(hot.headers)).toEqual(Object.keys(viaExpress.headers));
    for (const [name, value] of SECURITY_HEADERS) expect(hot.headers[name.toLowerCase()]).toBe(value);
    expect(hot.headers['cache-control']).toBe('no-store');
    expect(hot.headers['x-powered-by']).toBeUndefined();
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one, as the Express path does', async () => {
    const { me } = await signedIn();
    expect((await me().set('X-Request-Id', 'trace-123').expect(200)).headers['x-request-id']).toBe('trace-123');
    const replaced = (await me().set('X-Request-Id', 'bad id\twith spaces').expect(200)).headers['x-request-id'];
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes the same log line and counts the same metrics as the Express path', async () => {
    const { me, logs, app } = await signedIn();
    logs.length = 0;
    await me().set('X-Request-Id', 'hot-1').expect(200);
    await me('/api/auth/me?via=express').set('X-Request-Id', 'express-1').expect(200);
    const lines = logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
    const pick = ({ method, route, status, level, msg }: Record<string, unknown>) => ({ method, route, status, level, msg });
    expect(lines.map((line) => line.requestId)).toEqual(['hot-1', 'express-1']);
    expect(pick(lines[0])).toEqual(pick(lines[1]));
    expect(pick(lines[0])).toEqual({ method: 'GET', route: '/api/auth/me', status: 200, level: 30, msg: 'request' });
    expect(typeof lines[0].ms).toBe('number');
    const scrape = (await admin(app).get('/metrics').expect(200)).text;
    expect(scrape).toContain('svc_http_requests_total{method="GET",route="/api/auth/me",status="200"} 2');
    expect(scrape).toContain('svc_http_request_duration_seconds_count{method="GET",route="/api/auth/me"} 2');
  });

  it('leaves every failure to Express: the contract codes are unchanged', async () => {
    const { me, http, app, project, session } = await signedIn();
    expect((await http.get('/api/auth/me').set('Authorization', `Bearer ${session.accessToken}`).expect(401)).body.error).toBe('missing_api_key');
    expect((await me().set('X-API-Key', 'svc_live_forged').expect(401)).body.error).toBe('invalid_api_key');
    expect((await me().set('Authorization', `Bearer ${session.accessToken}x`).expect(401)).body.error).toBe('invalid_token');
    await admin(app).post(`/admin/projects/${project.id}/environments/production/users/${session.user.id}/ban`).expect(200);
    expect((await me().expect(403)).body).toEqual({ error: 'user_banned', message: expect.any(String) });
  });

  it('asks a database that cannot answer once: the 503 goes to Express as it is, not the request again', async () => {
    const { me, deps } = await signedIn();
    let calls = 0;
    const unavailable = async () => {
      calls += 1;
      throw new AuthError('service_unavailable');
    };
    deps.sessions.findLiveSession = unavailable;
    const res = await me().expect(503);
    expect(res.body).toEqual({ error: 'service_unavailable', message: expect.any(String) });
    expect(res.headers['retry-after']).toBe('5');
    expect(calls).toBe(1);
  });

  it("answers that 503 as the route does: the route's headers, in order, and its log line", async () => {
    const { me, deps, logs } = await signedIn();
    deps.sessions.findLiveSession = async () => {
      throw new AuthError('service_unavailable');
    };
    logs.length = 0;
    const hot = await me().set('X-Request-Id', 'hot-503').expect(503);
    const viaExpress = await me('/api/auth/me?via=express').set('X-Request-Id', 'express-503').expect(503);
    expect(hot.text).toBe(viaExpress.text);
    expect(Object.entries(comparable(hot.headers))).toEqual(Object.entries(comparable(viaExpress.headers)));
    const lines = logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
    expect(lines.map(({ requestId, route, status }) => ({ requestId, route, status }))).toEqual([
      { requestId: 'hot-503', route: '/api/auth/me', status: 503 },
      { requestId: 'express-503', route: '/api/auth/me', status: 503 },
    ]);
  });

  it('takes only server-side GETs of the exact path, and hands what it cannot answer to Express', async () => {
    // A stub app whose own /api/auth/me answers 418: a 200 can only come from the hot path.
    const deps = createInMemoryDeps();
    const auth = createAuthService(deps);
    const { app: real } = buildTestApp({ deps });
    const project = await createProject(real);
    const session = await signUp(real, project.live);
    const stub = express();
    stub.all('/api/auth/me', (_req, res) => void res.status(418).json({ via: 'express' }));
    const logs: string[] = [];
    const logger = createLogger({
      level: 'info',
      destination: new Writable({
        write: (chunk, _e, done) => {
          logs.push(String(chunk));
          done();
        },
      }),
    });
    installHotPaths(stub, [meHotPath({ auth, metrics: createMetrics(), logger })]);
    const http = request(stub);
    const call = (path = '/api/auth/me') => http.get(path).set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`);

    expect((await call().expect(200)).body.data.user.id).toBe(session.user.id);
    // Not taken: an Origin (CORS is Express's), a query string, a body, other methods, a trailing slash.
    await call().set('Origin', 'https://app.example').expect(418);
    await call('/api/auth/me?x=1').expect(418);
    await call('/api/auth/me/').expect(418);
    await http.post('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).send({}).expect(418);
    await http.head('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(418);
    await call().set('Content-Type', 'application/json').send('{}').expect(418);
    // Taken but not answerable (no key, no bearer, bad token, wrong project's key): handed to Express.
    await http.get('/api/auth/me').set('Authorization', `Bearer ${session.accessToken}`).expect(418);
    await http.get('/api/auth/me').set('X-API-Key', project.live).expect(418);
    await call().set('Authorization', 'Bearer not.a.token').expect(418);
    await call().set('X-API-Key', project.sandbox).expect(418);
    expect(logs.filter((line) => line.includes('"msg":"request"'))).toHaveLength(1);
  });

  it('serves a mounted app too, logging the route under its mount path', async () => {
    const { app, project, session, logs } = await signedIn();
    const parent = express().use('/auth-service', app);
    logs.length = 0;
    const res = await request(parent).get('/auth-service/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${session.accessToken}`).expect(200);
    expect(res.body.data.user.id).toBe(session.user.id);
    expect(logs.map((line) => JSON.parse(line).route)).toEqual(['/auth-service/api/auth/me']);
  });
});
