import express from 'express';
import request from 'supertest';
import type { AuthDeps } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { createProject, signUp } from './helpers';
import { buildEmailApp, countUsers, createMailProject, requestMagicLink, requestReset } from './email-helpers';

const SUCCESS = { data: { success: true } };

/** The storage ports whose use depends on whether the address has an account. */
const ACCOUNT_PORTS = ['users', 'outbox', 'oneTimeTokens', 'twoFactor', 'sessions', 'identities'] as const;

/** Wraps each account port so that every call is appended to `events` as `port.method`. */
function recordingDeps(events: string[]): Partial<AuthDeps> {
  const base = createInMemoryDeps();
  const wrapped: Partial<AuthDeps> = {};
  for (const name of ACCOUNT_PORTS) {
    const port = base[name] as object;
    (wrapped as Record<string, unknown>)[name] = new Proxy(port, {
      get(target, property, receiver) {
        const member = Reflect.get(target, property, receiver);
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) => {
          events.push(`${name}.${String(property)}`);
          return member.apply(target, args);
        };
      },
    });
  }
  // The outbox shares the one-time token store: keep that link through the wrappers.
  return { ...wrapped, clock: base.clock };
}

/**
 * The app behind a wrapper that appends `answered` when the response is ended, so the events
 * show which storage calls came before the answer and which after.
 */
function recordedApp() {
  const events: string[] = [];
  const built = buildEmailApp({ deps: recordingDeps(events) });
  const outer = express();
  outer.use((_req, res, next) => {
    const end = res.end.bind(res) as (...args: unknown[]) => unknown;
    (res as unknown as { end: (...args: unknown[]) => unknown }).end = (...args: unknown[]) => {
      events.push('answered');
      return end(...args);
    };
    next();
  });
  outer.use(built.app);
  return { ...built, events, outer };
}

/** The events of one request, from its first storage call to the end of its work after the answer. */
async function eventsOf(setup: ReturnType<typeof recordedApp>, send: () => Promise<unknown>): Promise<string[]> {
  setup.events.length = 0;
  await send();
  await setup.afterAnswer.idle();
  return [...setup.events];
}

describe('magic-link and reset requests answer before touching any account', () => {
  it('known and unknown addresses: the answer comes before any account lookup or mail write, on both paths', async () => {
    const setup = recordedApp();
    const project = await createMailProject(setup.app);
    await signUp(setup.app, project.live, 'known@example.com');
    const post = (path: string, body: object) => () => request(setup.outer).post(path).set('X-API-Key', project.live).send(body).expect(200);

    const paths = {
      'magic link, known': await eventsOf(setup, post('/api/auth/magic-link', { email: 'known@example.com' })),
      'magic link, unknown (created)': await eventsOf(setup, post('/api/auth/magic-link', { email: 'new@example.com' })),
      'magic link, unknown, createIfNotExists false': await eventsOf(setup, post('/api/auth/magic-link', { email: 'ghost@example.com', createIfNotExists: false })),
      'reset, known': await eventsOf(setup, post('/api/auth/password/reset', { email: 'known@example.com' })),
      'reset, unknown': await eventsOf(setup, post('/api/auth/password/reset', { email: 'nobody@example.com' })),
    };
    // Every path answers first: nothing that depends on the account happens before the answer.
    for (const [path, events] of Object.entries(paths)) expect({ path, first: events[0] }).toEqual({ path, first: 'answered' });
    // ... and the work still happens, after it.
    expect(paths['magic link, known']).toEqual(['answered', 'users.findByEmail', 'outbox.enqueue']);
    expect(paths['magic link, unknown (created)']).toEqual(['answered', 'users.findByEmail', 'users.createWithinLimit', 'outbox.enqueue']);
    expect(paths['reset, known']).toEqual(['answered', 'users.findByEmail', 'outbox.enqueue']);
    expect(paths['reset, unknown']).toEqual(['answered', 'users.findByEmail']);
    expect(await countUsers(setup.deps, project.id)).toBe(2);
  });

  it('a project without magicLinkUrl is still refused before the answer (a setting, not an account)', async () => {
    const setup = recordedApp();
    const project = await createProject(setup.app);
    setup.events.length = 0;
    const res = await request(setup.outer).post('/api/auth/magic-link').set('X-API-Key', project.live).send({ email: 'a@example.com' }).expect(400);
    expect(res.body.error).toBe('validation_error');
    expect(setup.events).toEqual(['answered']);
  });

  it('work that fails after the answer is logged (no address in the line) and counted; the caller heard success', async () => {
    const setup = buildEmailApp();
    const project = await createMailProject(setup.app);
    setup.deps.users.findByEmail = async () => {
      throw new Error('connection terminated');
    };
    expect((await requestReset(setup.app, project.live, 'ada@example.com').expect(200)).body).toEqual(SUCCESS);
    await setup.afterAnswer.idle();
    const line = setup.logs.find((l) => l.includes('failed after its answer'));
    expect(line).toBeDefined();
    expect(line).toContain('connection terminated');
    expect(line).not.toContain('ada@example.com');
    expect(await setup.metrics.registry.getSingleMetricAsString('svc_accepted_requests_failed_total')).toContain('svc_accepted_requests_failed_total{kind="password_reset"} 1');
  });
});

describe('magic links that create users share the address budget of sign-up', () => {
  it('100 requests from one address create 10 users and send 10 mails; every answer is 200; another address is not affected', async () => {
    const setup = buildEmailApp();
    const project = await createMailProject(setup.app);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i += 1) statuses.push((await requestMagicLink(setup.app, project.live, { email: `victim${i}@example.com` })).status);
    await setup.afterAnswer.idle();
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(await countUsers(setup.deps, project.id)).toBe(10);
    await setup.deliver();
    expect(setup.mailer.sent).toHaveLength(10);
    expect(await setup.metrics.registry.getSingleMetricAsString('svc_magic_link_users_refused_total')).toContain('svc_magic_link_users_refused_total 90');
    const refusals = setup.logs.filter((l) => l.includes('sign-up budget'));
    expect(refusals).toHaveLength(90);
    expect(refusals.join('')).not.toContain('victim');

    // The budget is the sign-up one: this address cannot sign up either now...
    const signup = await request(setup.app).post('/api/auth/signup').set('X-API-Key', project.live).send({ email: 'late@example.com', password: 'long enough' });
    expect(signup.status).toBe(429);
    // ... an existing account still gets its link (nothing is created) ...
    await requestMagicLink(setup.app, project.live, { email: 'victim3@example.com' }).expect(200);
    // ... and another address has a budget of its own.
    await requestMagicLink(setup.app, project.live, { email: 'other@example.com' }).set('X-Svc-Client-Ip', '203.0.113.8').expect(200);
    await setup.afterAnswer.idle();
    await setup.deliver();
    expect(
      setup.mailer.sent
        .map((mail) => mail.to)
        .slice(-2)
        .sort(),
    ).toEqual(['other@example.com', 'victim3@example.com']);
    expect(await countUsers(setup.deps, project.id)).toBe(11);
  });

  it('sign-ups spend the budget magic links create from', async () => {
    const setup = buildEmailApp();
    const project = await createMailProject(setup.app);
    for (let i = 0; i < 10; i += 1) await signUp(setup.app, project.live, `u${i}@example.com`);
    await requestMagicLink(setup.app, project.live, { email: 'new@example.com' }).expect(200);
    await setup.afterAnswer.idle();
    expect(await countUsers(setup.deps, project.id)).toBe(10);
  });
});
