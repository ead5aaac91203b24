import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { AuthError, InMemoryRateLimiter } from '@svc/core';
import { createLogger } from '../src/composition/logger';
import { installHotPaths } from '../src/http/hot-path';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { refreshHotPath } from '../src/http/routes/auth-refresh';
import { admin, ADMIN_TOKEN, buildTestApp, createProject, signUp } from './helpers';
import { countRouted } from './support/routed';

// POST /api/auth/refresh is answered without Express when a server sends it (routes/auth-refresh.ts).
// Each case below runs on two identical apps: once on the exact path (the hot path takes it), once
// with a query string the route ignores (the hot path never takes one, so Express's route answers;
// a bare `?` would not do: supertest drops it), and
// every observable outcome must be the same: status, headers and their order, body, log line,
// metrics, audit events.

/** Headers node adds per connection or per answer; everything else must match exactly. */
const PER_ANSWER = new Set(['date', 'connection', 'keep-alive']);

type World = Awaited<ReturnType<typeof world>>;

/** A fresh app with a project and three signed-up users; `limit` lowers the refresh limit. */
async function world(limit = DEFAULT_RATE_LIMITS.refresh.limit) {
  const built = buildTestApp({ config: { rateLimits: { ...structuredClone(DEFAULT_RATE_LIMITS), refresh: { limit, windowSeconds: 60, whenStoreDown: 'allow' } } } });
  const project = await createProject(built.app);
  const users = [];
  for (const email of ['ada@example.com', 'bob@example.com', 'cy@example.com']) users.push(await signUp(built.app, project.live, email));
  const routed = countRouted(built.app);
  let refreshes = 0;
  const refresh = built.auth.refresh.bind(built.auth);
  built.auth.refresh = (...args) => {
    refreshes += 1;
    return refresh(...args);
  };
  return { ...built, project, users, refreshes: () => refreshes, routed };
}

/** One request of a case: what to send, given the world and the path to send it to. */
type Step = (w: World, path: string) => request.Test;

const post = (w: World, path: string) => request(w.app).post(path).set('X-Request-Id', 'case-1').set('User-Agent', 'parity/1.0').set('X-Svc-Client-Ip', '203.0.113.9');
const keyed = (w: World, path: string) => post(w, path).set('X-API-Key', w.project.live);
const refreshOf =
  (token: (w: World) => string): Step =>
  (w, path) =>
    keyed(w, path).send({ refreshToken: token(w) });

/** What may differ between two worlds' answers: the tokens' values (random), not their shape. */
function comparableBody(text: string): unknown {
  const body = JSON.parse(text) as { data?: Record<string, unknown> };
  if (!body.data) return body;
  return Object.fromEntries(Object.entries(body.data).map(([name, value]) => [name, typeof value === 'string' ? `${value.length} characters` : value]));
}

async function answer(w: World, step: Step, path: string) {
  w.logs.length = 0;
  const routedBefore = w.routed();
  const res = await step(w, path);
  const routed = w.routed() - routedBefore;
  const lines = w.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
  const audit = await admin(w.app).get(`/admin/projects/${w.project.id}/environments/production/audit-log?type=refresh_token.reused`).expect(200);
  const scrape = (await admin(w.app).get('/metrics').expect(200)).text;
  return {
    status: res.status,
    headers: Object.entries(res.headers).filter(([name]) => !PER_ANSWER.has(name)),
    body: comparableBody(res.text),
    logs: lines.map(({ level, msg, requestId, method, route, status, err }) => ({ level, msg, requestId, method, route, status, err: (err as { type?: unknown })?.type })),
    // Ids differ between the worlds (random); the rest of each event, its request's context included, may not.
    events: (audit.body.data.entries as Array<Record<string, Record<string, unknown>>>).map(({ actor, clientAddress, userAgent, requestId, data }) => ({
      actor: { ...actor, apiKeyId: typeof actor.apiKeyId },
      data: { ...data, sessionId: typeof data.sessionId },
      clientAddress,
      userAgent,
      requestId,
    })),
    // Counters only: durations differ.
    metrics: scrape.split('\n').filter((line) => /^svc_(http_requests_total|refreshes_total|rate_limited_total|refresh_replays_total)/.test(line)),
    refreshes: w.refreshes(),
    routed,
  };
}

/** Runs `steps` on two identical worlds, through the hot path and through Express, and compares each answer. */
async function expectSameAnswers(steps: Step[], options: { limit?: number; prepare?: (w: World) => void } = {}) {
  const [hot, viaExpress] = [await world(options.limit), await world(options.limit)];
  options.prepare?.(hot);
  options.prepare?.(viaExpress);
  const answers = [];
  for (const step of steps) {
    const { routed, ...a } = await answer(hot, step, '/api/auth/refresh');
    const { routed: routedB, ...b } = await answer(viaExpress, step, '/api/auth/refresh?via=express');
    expect(routedB).toBe(1);
    expect(a).toEqual(b);
    answers.push({ ...a, routed });
  }
  return answers;
}

describe('POST /api/auth/refresh on the hot path: the same answers as the Express route', () => {
  it('a refresh, then the rotated token presented again (a replay: every session ends, one event)', async () => {
    const [ok, replay, after] = await expectSameAnswers([refreshOf((w) => w.users[0].refreshToken), refreshOf((w) => w.users[0].refreshToken), refreshOf((w) => w.users[1].refreshToken)]);
    expect(ok.status).toBe(200);
    expect(ok.routed).toBe(0); // answered by the hot path alone
    expect(replay.routed).toBe(1); // its failure answered by Express's error handler
    expect(ok.headers.map(([name]) => name)).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'cache-control', 'vary', 'x-request-id']));
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: 'invalid_refresh_token', message: 'The refresh token is not valid.' });
    expect(replay.events).toEqual([
      {
        actor: { type: 'api_key', apiKeyId: 'string' },
        clientAddress: '203.0.113.9',
        userAgent: 'parity/1.0',
        requestId: 'case-1',
        data: expect.objectContaining({ response: 'revoke_all_sessions' }),
      },
    ]);
    // The replay ran the refresh once, not once on the hot path and again in Express.
    expect(replay.refreshes - ok.refreshes).toBe(1);
    expect(after.status).toBe(200); // another user's session is untouched
  });

  it('wrong, missing and empty API keys; unknown tokens', async () => {
    const answers = await expectSameAnswers([
      (w, path) => post(w, path).set('X-API-Key', 'svc_live_forged').send({ refreshToken: w.users[0].refreshToken }),
      (w, path) => post(w, path).send({ refreshToken: w.users[0].refreshToken }),
      (w, path) => post(w, path).set('X-API-Key', '').send({ refreshToken: w.users[0].refreshToken }),
      refreshOf(() => 'not-a-token'),
      (w, path) => post(w, path).set('X-API-Key', w.project.sandbox).send({ refreshToken: w.users[0].refreshToken }),
    ]);
    expect(answers.map((a) => [a.status, (a.body as { error: string }).error])).toEqual([
      [401, 'invalid_api_key'],
      [401, 'missing_api_key'],
      [401, 'missing_api_key'],
      [401, 'invalid_refresh_token'],
      [401, 'invalid_refresh_token'],
    ]);
  });

  it('bodies: invalid JSON, a repeated key, not an object, missing or bad fields, other media types, too large', async () => {
    const raw =
      (body: string, type = 'application/json') =>
      (w: World, path: string) =>
        keyed(w, path).set('Content-Type', type).send(body);
    const answers = await expectSameAnswers([
      raw('{"refreshToken":'),
      raw('{"refreshToken":"a","refreshToken":"b"}'),
      raw('{"refreshToken":"a\\u0000"}'),
      raw('[1]'),
      raw('   '),
      raw('{}'),
      raw('{"refreshToken":42}'),
      raw(`{"refreshToken":"${'x'.repeat(513)}"}`),
      raw('{"refreshToken":"x"}', 'text/plain'),
      raw('{"refreshToken":"x"}', 'application/json; charset=latin1'),
      raw(`{"refreshToken":"${'x'.repeat(70_000)}"}`),
      raw('{"refreshToken":"x"}', 'Application/JSON; charset=UTF-8'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 400, 400, 400, 400, 415, 415, 413, 401]);
    // A body refused before the routes carries no Cache-Control, one refused by the route does.
    expect(answers[0].headers.map(([name]) => name)).not.toContain('cache-control');
    expect(answers[5].headers.map(([name]) => name)).toContain('vary');
  });

  it('rate limited: the limit counts the same, the 429 carries the same headers, logs and metrics', async () => {
    const answers = await expectSameAnswers([refreshOf((w) => w.users[0].refreshToken), refreshOf((w) => w.users[1].refreshToken), refreshOf((w) => w.users[2].refreshToken)], { limit: 2 });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429]);
    const refused = Object.fromEntries(answers[2].headers);
    expect(refused).toMatchObject({ ratelimit: 'limit=2, remaining=0, reset=60', 'retry-after': '60' });
    expect(answers[2].metrics).toContain('svc_rate_limited_total{rule="refresh"} 1');
  });

  it('an Origin (CORS), a query string of its own, a database that does not answer', async () => {
    const answers = await expectSameAnswers(
      [(w, path) => keyed(w, path).set('Origin', 'https://app.example').send({ refreshToken: w.users[0].refreshToken }), refreshOf((w) => w.users[1].refreshToken)],
      {
        prepare: (w) => {
          w.deps.sessions.findRefreshTokenWithHolder = async () => {
            throw new AuthError('service_unavailable');
          };
        },
      },
    );
    expect(answers.map((a) => a.status)).toEqual([503, 503]);
    expect(Object.fromEntries(answers[1].headers)['retry-after']).toBe('5');
    expect(answers[1].logs.map((line) => line.msg)).toEqual(['dependency unavailable', 'request']);
  });
});

describe('POST /api/auth/refresh: what the hot path takes', () => {
  it('serves a mounted app, also one mounted behind a body parser of its own (then Express reads the parsed body)', async () => {
    const w = await world();
    const [plain, parsing] = [express().use('/auth-service', w.app), express().use(express.json()).use('/auth-service', w.app)];
    w.logs.length = 0;
    for (const [parent, user] of [
      [plain, w.users[0]],
      [parsing, w.users[1]],
    ] as const) {
      const before = w.routed();
      await request(parent).post('/auth-service/api/auth/refresh').set('X-API-Key', w.project.live).send({ refreshToken: user.refreshToken }).expect(200);
      expect(w.routed() - before).toBe(parent === plain ? 0 : 1);
    }
    expect(w.logs.map((line) => JSON.parse(line).route)).toEqual(['/auth-service/api/auth/refresh', '/auth-service/api/auth/refresh']);
  });

  /** A stub app whose own /api/auth/refresh answers 418: a 200 can only come from the hot path. */
  async function stubbed() {
    const { app: real, auth, deps, metrics, logs } = buildTestApp();
    const project = await createProject(real);
    const session = await signUp(real, project.live);
    let refreshes = 0;
    const counted = { ...auth, refresh: (...args: Parameters<typeof auth.refresh>) => ((refreshes += 1), auth.refresh(...args)) };
    const stub = express();
    stub.all('/api/auth/refresh', (_req, res) => void res.status(418).json({ via: 'express' }));
    const config = { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS) };
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => done(void logs.push(String(chunk))) }) });
    installHotPaths(stub, [refreshHotPath({ auth: counted, rateLimiter: new InMemoryRateLimiter(deps.clock), logger, metrics, config, ready: async () => {} }, stub)]);
    const call = (path = '/api/auth/refresh') => request(stub).post(path).set('X-API-Key', project.live);
    logs.length = 0;
    return { call, stub, session, logs, refreshes: () => refreshes };
  }

  it("answers a server's plain refresh itself, and runs it once whatever the outcome", async () => {
    const { call, session, logs, refreshes } = await stubbed();
    const ok = await call().send({ refreshToken: session.refreshToken }).expect(200);
    expect(Object.keys(ok.body.data).sort()).toEqual(['accessToken', 'expiresIn', 'refreshToken']);
    expect(refreshes()).toBe(1);
    expect(logs.map((line) => JSON.parse(line).route)).toEqual(['/api/auth/refresh']);
    // A replay fails on the hot path and is handed over (here to the stub) without running again.
    await call().send({ refreshToken: session.refreshToken }).expect(418);
    expect(refreshes()).toBe(2);
  });

  it('leaves to Express an Origin, a query string, another path or method, no key, a body that is not plain JSON', async () => {
    const { call, stub, session, refreshes } = await stubbed();
    const body = { refreshToken: session.refreshToken };
    await call().set('Origin', 'https://app.example').send(body).expect(418);
    await call('/api/auth/refresh?x=1').send(body).expect(418);
    await call('/api/auth/refresh/').send(body).expect(418);
    await request(stub).post('/api/auth/refresh').send(body).expect(418);
    await call().set('Content-Type', 'text/plain').send(JSON.stringify(body)).expect(418);
    await call().set('Content-Encoding', 'gzip').send(body).expect(418);
    await call().expect(418);
    await request(stub).put('/api/auth/refresh').set('X-API-Key', 'k').send(body).expect(418);
    expect(refreshes()).toBe(0);
  });
});
