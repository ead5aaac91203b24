import express from 'express';
import request from 'supertest';
import { DEFAULT_RATE_LIMITS, type RateLimitRules } from '../src/http/middleware/rate-limit-rules';
import { admin, createProject, signUp } from './helpers';
import { buildEmailApp, countUsers, createMailProject } from './email-helpers';
import { countRouted } from './support/routed';

// POST /api/auth/magic-link and POST /api/auth/password/reset are answered without Express when a
// server sends them (routes/mail-request.ts). As in refresh-hot-path.test.ts, each case runs on two
// identical apps, once on the exact path (the hot path takes it) and once with a query string the
// route ignores (only Express's route answers it), and every observable outcome must be the same:
// status, headers and their order, body, log lines, counters, the users created and the mails
// queued (each exactly once).

/** Headers node adds per connection or per answer; everything else must match exactly. */
const PER_ANSWER = new Set(['date', 'connection', 'keep-alive']);

const MAIL_PATHS = ['/api/auth/magic-link', '/api/auth/password/reset'] as const;
type MailPath = (typeof MAIL_PATHS)[number];

type World = Awaited<ReturnType<typeof world>>;

/** A fresh app with a mail project (one signed-up user, ada) and a project without mail pages. */
async function world(limits: Partial<RateLimitRules> = {}) {
  const built = buildEmailApp({ config: { rateLimits: { ...structuredClone(DEFAULT_RATE_LIMITS), ...limits } } });
  const project = await createMailProject(built.app);
  const bare = await createProject(built.app, { name: 'No mail pages' });
  await signUp(built.app, project.live, 'ada@example.com');
  const routed = countRouted(built.app);
  // Every mail put in the outbox: the one write a mail request exists for.
  const enqueued: string[] = [];
  const outbox = built.deps.outbox;
  const enqueue = outbox.enqueue.bind(outbox);
  outbox.enqueue = (scope, mail) => {
    enqueued.push(`${scope.environment} ${mail.template} ${mail.to}`);
    return enqueue(scope, mail);
  };
  return { ...built, project, bare, enqueued, routed };
}

/** One request of a case: what to send, given the world and the path to send it to. */
type Step = (w: World, path: string) => request.Test;

const post = (w: World, path: string) => request(w.app).post(path).set('X-Request-Id', 'case-1').set('User-Agent', 'parity/1.0').set('X-Svc-Client-Ip', '203.0.113.9');
const keyed = (w: World, path: string) => post(w, path).set('X-API-Key', w.project.live);
const asking =
  (body: object): Step =>
  (w, path) =>
    keyed(w, path).send(body);
const raw =
  (body: string, type = 'application/json'): Step =>
  (w, path) =>
    keyed(w, path).set('Content-Type', type).send(body);

async function answer(w: World, step: Step, path: string) {
  w.logs.length = 0;
  w.enqueued.length = 0;
  const routedBefore = w.routed();
  const res = await step(w, path);
  await w.afterAnswer.idle();
  const routed = w.routed() - routedBefore;
  const lines = w.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
  const scrape = (await admin(w.app).get('/metrics').expect(200)).text;
  return {
    status: res.status,
    headers: Object.entries(res.headers).filter(([name]) => !PER_ANSWER.has(name)),
    body: res.text,
    logs: lines.map(({ level, msg, requestId, method, route, status, limit, kind, err }) => ({ level, msg, requestId, method, route, status, limit, kind, err: (err as { type?: unknown })?.type })),
    // Counters only: durations differ.
    metrics: scrape.split('\n').filter((line) => /^svc_(http_requests_total|rate_limited_total|magic_link_users_refused_total|accepted_requests_failed_total)/.test(line)),
    enqueued: [...w.enqueued],
    users: await countUsers(w.deps, w.project.id),
    routed,
  };
}

/** Runs `steps` on `mailPath` in two identical worlds, through the hot path and through Express, and compares each answer. */
async function expectSameAnswers(mailPath: MailPath, steps: Step[], limits: Partial<RateLimitRules> = {}) {
  const [hot, viaExpress] = [await world(limits), await world(limits)];
  const answers = [];
  for (const step of steps) {
    const { routed, ...a } = await answer(hot, step, mailPath);
    const { routed: routedB, ...b } = await answer(viaExpress, step, `${mailPath}?via=express`);
    expect(routedB).toBe(1);
    expect(a).toEqual(b);
    answers.push({ ...a, routed });
  }
  return answers;
}

const SUCCESS = JSON.stringify({ data: { success: true } });

describe.each(MAIL_PATHS)('POST %s on the hot path: the same answers as the Express route', (mailPath) => {
  it('known and unknown addresses: success, answered by the hot path alone, one mail queued for the known one', async () => {
    const answers = await expectSameAnswers(mailPath, [asking({ email: 'ada@example.com' }), asking({ email: 'Ada@Example.com ' }), asking({ email: 'nobody@example.com', createIfNotExists: false })]);
    expect(answers.map((a) => [a.status, a.body, a.routed])).toEqual([
      [200, SUCCESS, 0],
      [200, SUCCESS, 0],
      [200, SUCCESS, 0],
    ]);
    const template = mailPath === '/api/auth/magic-link' ? 'magic_link' : 'password_reset';
    expect(answers[0].enqueued).toEqual([`production ${template} ada@example.com`]);
    expect(answers[2].enqueued).toEqual([]);
    expect(answers[0].headers.map(([name]) => name)).toEqual(expect.arrayContaining(['ratelimit', 'ratelimit-policy', 'cache-control', 'vary', 'x-request-id', 'content-security-policy']));
    expect(answers[0].logs).toEqual([expect.objectContaining({ msg: 'request', requestId: 'case-1', route: mailPath, status: 200 })]);
    expect(answers[0].metrics).toContain(`svc_http_requests_total{method="POST",route="${mailPath}",status="200"} 1`);
  });

  it('bad bodies: invalid JSON, a repeated key, not an object, missing or bad fields, other media types, too large', async () => {
    const answers = await expectSameAnswers(mailPath, [
      raw('{"email":'),
      raw('{"email":"a@example.com","email":"b@example.com"}'),
      raw('[1]'),
      raw('   '),
      raw('{}'),
      raw('{"email":"not an address"}'),
      raw('{"email":"ada@example.com","createIfNotExists":"yes"}'),
      raw('{"email":"ada@example.com"}', 'text/plain'),
      raw('{"email":"ada@example.com"}', 'application/json; charset=latin1'),
      raw(`{"email":"${'x'.repeat(70_000)}@example.com"}`),
    ]);
    const statuses = answers.map((a) => a.status);
    // createIfNotExists is the magic link's own field; the reset drops it (whitelist).
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, mailPath === '/api/auth/magic-link' ? 400 : 200, 415, 415, 413]);
    expect(answers.every((a) => a.users === 1)).toBe(true);
    // A body refused before the routes carries no Cache-Control; one refused by the route does, and was the hot path's until then.
    expect(answers[0].headers.map(([name]) => name)).not.toContain('cache-control');
    expect(answers[4].headers.map(([name]) => name)).toEqual(expect.arrayContaining(['cache-control', 'vary']));
    expect(answers.slice(0, 7).map((a) => a.routed)).toEqual([1, 1, 1, 1, 1, 1, mailPath === '/api/auth/magic-link' ? 1 : 0]);
  });

  it('wrong, missing and empty API keys; a project without the mail page', async () => {
    const answers = await expectSameAnswers(mailPath, [
      (w, path) => post(w, path).set('X-API-Key', 'svc_live_forged').send({ email: 'ada@example.com' }),
      (w, path) => post(w, path).send({ email: 'ada@example.com' }),
      (w, path) => post(w, path).set('X-API-Key', '').send({ email: 'ada@example.com' }),
      (w, path) => post(w, path).set('X-API-Key', w.bare.live).send({ email: 'ada@example.com' }),
    ]);
    expect(answers.map((a) => [a.status, (JSON.parse(a.body) as { error: string }).error])).toEqual([
      [401, 'invalid_api_key'],
      [401, 'missing_api_key'],
      [401, 'missing_api_key'],
      [400, 'validation_error'],
    ]);
    expect(answers.every((a) => a.enqueued.length === 0)).toBe(true);
    // The project without the page was refused after its limits were counted: their headers stand.
    expect(answers[3].headers.map(([name]) => name)).toEqual(expect.arrayContaining(['ratelimit', 'cache-control']));
  });

  it('rate limited: the limits count the same, the 429 carries the same headers, logs and metrics; no mail', async () => {
    const rule = mailPath === '/api/auth/magic-link' ? 'magicLink' : 'passwordReset';
    const answers = await expectSameAnswers(mailPath, [asking({ email: 'ada@example.com' }), asking({ email: 'ada@example.com' }), asking({ email: 'ada@example.com' })], {
      [rule]: { limit: 2, windowSeconds: 60, whenStoreDown: 'allow' },
    });
    expect(answers.map((a) => [a.status, a.enqueued.length, a.routed])).toEqual([
      [200, 1, 0],
      [200, 1, 0],
      [429, 0, 1],
    ]);
    expect(Object.fromEntries(answers[2].headers)).toMatchObject({ ratelimit: 'limit=2, remaining=0, reset=60', 'retry-after': '60' });
    expect(answers[2].metrics).toContain(`svc_rate_limited_total{rule="${rule}"} 1`);
  });

  it('an Origin (CORS) is left to Express', async () => {
    const [withOrigin] = await expectSameAnswers(mailPath, [(w, path) => keyed(w, path).set('Origin', 'https://app.example').send({ email: 'ada@example.com' })]);
    expect([withOrigin.status, withOrigin.routed, withOrigin.enqueued.length]).toEqual([200, 1, 1]);
    expect(Object.fromEntries(withOrigin.headers)['access-control-allow-origin']).toBe('https://app.example');
  });
});

describe('POST /api/auth/magic-link on the hot path: new users and the sign-up budget', () => {
  it('creates a user for an unknown address, and past the budget creates nobody, sends nothing, and says so in the log', async () => {
    const answers = await expectSameAnswers('/api/auth/magic-link', [asking({ email: 'new@example.com' }), asking({ email: 'other@example.com' })], {
      signup: { limit: 1, windowSeconds: 60, whenStoreDown: 'allow' },
    });
    expect(answers.map((a) => [a.status, a.users, a.enqueued, a.routed])).toEqual([
      [200, 2, ['production magic_link new@example.com'], 0],
      [200, 2, [], 0],
    ]);
    expect(answers[1].logs.map((line) => [line.msg, line.requestId, line.limit])).toEqual(
      expect.arrayContaining([["magic link: the client address's sign-up budget is spent; no user created, no mail sent", 'case-1', 'signup']]),
    );
    expect(answers[1].metrics).toContain('svc_magic_link_users_refused_total 1');
  });
});

describe('mail requests: what the hot path takes', () => {
  it('serves a mounted app, also one mounted behind a body parser of its own (then Express reads the parsed body)', async () => {
    const w = await world();
    const [plain, parsing] = [express().use('/auth-service', w.app), express().use(express.json()).use('/auth-service', w.app)];
    for (const path of MAIL_PATHS) {
      for (const parent of [plain, parsing]) {
        w.logs.length = 0;
        w.enqueued.length = 0;
        const before = w.routed();
        await request(parent).post(`/auth-service${path}`).set('X-API-Key', w.project.live).send({ email: 'ada@example.com' }).expect(200);
        await w.afterAnswer.idle();
        expect(w.routed() - before).toBe(parent === plain ? 0 : 1);
        expect(w.enqueued).toHaveLength(1);
        expect(w.logs.map((line) => JSON.parse(line).route)).toEqual([`/auth-service${path}`]);
      }
    }
  });

  it('leaves to Express an Origin, a query string, another path or method, no key, a body that is not plain JSON', async () => {
    const w = await world();
    // Behind the hot paths, a router that answers 418 to everything: a 200 can only come from the hot path.
    const stub = express().all('/{*any}', (_req, res) => void res.status(418).json({ via: 'express' }));
    const router = (w.app as unknown as { router: { handle: (...args: unknown[]) => void } }).router;
    router.handle = (req, res, done) => (stub as unknown as { handle: (...args: unknown[]) => void }).handle(req, res, done);
    for (const path of MAIL_PATHS) {
      const call = (to: string = path) => request(w.app).post(to).set('X-API-Key', w.project.live);
      const body = { email: 'ada@example.com' };
      await call().send(body).expect(200);
      await call().set('Origin', 'https://app.example').send(body).expect(418);
      await call(`${path}?x=1`).send(body).expect(418);
      await call(`${path}/`).send(body).expect(418);
      await request(w.app).post(path).send(body).expect(418);
      await call().set('Content-Type', 'text/plain').send(JSON.stringify(body)).expect(418);
      await call().set('Content-Encoding', 'gzip').send(body).expect(418);
      await call().expect(418);
      await request(w.app).put(path).set('X-API-Key', w.project.live).send(body).expect(418);
    }
    await w.afterAnswer.idle();
    expect(w.enqueued).toHaveLength(2); // the two the hot path answered
  });
});
