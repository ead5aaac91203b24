import { Writable } from 'node:stream';
import request from 'supertest';
import type { Express } from 'express';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres } from '@svc/adapters-typeorm/testing';
import type { PasswordHasher } from '@svc/core';
import { FakePasswordHasher } from '@svc/core/testing';
import { createApp } from '../src/http/app';
import { loadConfig } from '../src/composition/config';
import { buildContainer, storageOptionsOf, type Container } from '../src/composition/container';
import { resolveSecrets } from '../src/composition/dev-secrets';
import { createLogger } from '../src/composition/logger';
import { ADMIN_TOKEN, admin, buildTestApp, createProject } from './helpers';

// Text PostgreSQL cannot store (NUL) or that is not Unicode (a lone surrogate) is refused at the
// edge as 400 validation_error, before any hashing, and nothing of it reaches the log. Bodies are
// sent as raw JSON text: the escapes are what a client puts on the wire.
const NUL = '\\u0000';
const LONE_HIGH = '\\ud800';
const LONE_LOW = '\\udc00';
const MARKER = 'leakmarker';

/** Signup bodies with the bad text in each place a client can put it. */
const SIGNUP_CASES: Array<[string, string]> = [
  ['NUL in a meta value', `{"email":"a@example.com","password":"long enough","meta":{"note":"${MARKER}${NUL}"}}`],
  ['NUL in a meta key', `{"email":"a@example.com","password":"long enough","meta":{"${MARKER}${NUL}":1}}`],
  ['a lone high surrogate deep in meta', `{"email":"a@example.com","password":"long enough","meta":{"a":{"b":["${MARKER}${LONE_HIGH}"]}}}`],
  ['a lone low surrogate in a meta key', `{"email":"a@example.com","password":"long enough","meta":{"x${LONE_LOW}${MARKER}":true}}`],
  ['NUL in the password', `{"email":"a@example.com","password":"${MARKER}${NUL}long enough"}`],
  ['a lone surrogate in the password', `{"email":"a@example.com","password":"${MARKER}${LONE_HIGH}long enough"}`],
  ['NUL in the e-mail', `{"email":"a${NUL}@example.com","password":"long enough"}`],
];

/** A hasher that records every hash: the refusal must come before any bcrypt work. */
function countingHasher(): PasswordHasher & { calls: number } {
  const inner = new FakePasswordHasher();
  const hasher = {
    calls: 0,
    hash: (password: string) => {
      hasher.calls += 1;
      return inner.hash(password);
    },
    verify: (password: string, hash: string) => {
      hasher.calls += 1;
      return inner.verify(password, hash);
    },
    verifyDummy: (password: string) => {
      hasher.calls += 1;
      return inner.verifyDummy(password);
    },
  };
  return hasher;
}

const rawPost = (app: Express, path: string, body: string, headers: Record<string, string>) => request(app).post(path).set(headers).set('Content-Type', 'application/json').send(body);

describe('NUL and lone surrogates are 400 validation_error everywhere, before hashing, never logged', () => {
  it.each(SIGNUP_CASES)('sign-up with %s', async (_what, body) => {
    const passwords = countingHasher();
    const { app, logs, deps } = buildTestApp({ deps: { passwords } });
    const project = await createProject(app);
    const res = await rawPost(app, '/api/auth/signup', body, { 'X-API-Key': project.live }).expect(400);
    expect(res.body.error).toBe('validation_error');
    expect(res.body.message).not.toContain(MARKER);
    expect(passwords.calls).toBe(0);
    expect(await deps.users.count({ projectId: project.id, environment: 'production' })).toBe(0);
    expect(logs.join('')).not.toContain(MARKER);
  });

  it('every other body and query the API reads: login, magic link, reset, update, refresh, admin', async () => {
    const passwords = countingHasher();
    const { app, logs } = buildTestApp({ deps: { passwords } });
    const project = await createProject(app);
    const key = { 'X-API-Key': project.live };
    const adminAuth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
    const bad = `${MARKER}${NUL}`;
    const cases: Array<[string, string, Record<string, string>]> = [
      ['/api/auth/login', `{"email":"a@example.com","password":"${bad}"}`, key],
      ['/api/auth/login', `{"email":"a@example.com","password":"${MARKER}${LONE_LOW}"}`, key],
      ['/api/auth/magic-link', `{"email":"a${NUL}@example.com"}`, key],
      ['/api/auth/password/reset', `{"email":"a${LONE_HIGH}@example.com"}`, key],
      ['/api/auth/password/update', `{"token":"${bad}","newPassword":"long enough"}`, key],
      ['/api/auth/refresh', `{"refreshToken":"${bad}"}`, key],
      ['/api/auth/logout', `{"refreshToken":"${MARKER}${LONE_HIGH}"}`, key],
      ['/admin/projects', `{"name":"${bad}"}`, adminAuth],
      ['/admin/projects', `{"name":"ok","defaultMeta":{"${bad}":1}}`, adminAuth],
      [`/admin/projects/${project.id}/oidc-clients`, `{"environment":"production","name":"${MARKER}${LONE_HIGH}","redirectUris":["https://app.example.test/cb"]}`, adminAuth],
    ];
    for (const [path, body, headers] of cases) {
      const res = await rawPost(app, path, body, headers);
      expect({ path, status: res.status, error: res.body.error }).toEqual({ path, status: 400, error: 'validation_error' });
      expect(res.body.message).not.toContain(MARKER);
    }
    // Queries and paths: the admin user search and a project id with NUL in it.
    const search = await admin(app).get(`/admin/projects/${project.id}/environments/production/users?email=a%00${MARKER}%40example.com`);
    expect([search.status, search.body.error]).toEqual([400, 'validation_error']);
    const patched = await request(app).patch(`/admin/projects/${project.id}`).set(adminAuth).set('Content-Type', 'application/json').send(`{"name":"${MARKER}${LONE_LOW}"}`);
    expect([patched.status, patched.body.error]).toEqual([400, 'validation_error']);
    expect(passwords.calls).toBe(0);
    expect(logs.join('')).not.toContain(MARKER);
  });

  it('well-formed text outside the BMP (a surrogate pair), and other control characters, are stored as sent', async () => {
    const { app, deps } = buildTestApp();
    const project = await createProject(app);
    const res = await rawPost(app, '/api/auth/signup', '{"email":"b@example.com","password":"long enough","meta":{"emoji":"\\ud83d\\ude00","tab":"a\\tb"}}', {
      'X-API-Key': project.live,
    }).expect(201);
    expect(res.body.data.user.meta).toEqual({ emoji: '😀', tab: 'a\tb' });
    const stored = await deps.users.findByEmail({ projectId: project.id, environment: 'production' }, 'b@example.com');
    expect(stored?.meta).toEqual({ emoji: '😀', tab: 'a\tb' });
  });
});

describeWithPostgres('NUL and lone surrogates on PostgreSQL', (url) => {
  let container: Container;
  /** The same database, read beside the service (which offers no raw ports). */
  let storage: TypeormStorage;
  let app: Express;
  let drop: () => Promise<void>;
  const logs: string[] = [];

  beforeAll(async () => {
    const schema = await createTestSchema(url);
    drop = schema.drop;
    const { config } = await resolveSecrets(
      loadConfig({
        DATABASE_URL: url,
        SVC_DATABASE_SCHEMA: schema.schema,
        SVC_BCRYPT_COST: '4',
        SVC_ADMIN_TOKEN: ADMIN_TOKEN,
        SVC_MASTER_KEY: '7'.repeat(64),
        SVC_BASE_URL: 'http://svc.example.test',
        SVC_PURGE_INTERVAL_SECONDS: '0',
      }),
    );
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => done(void logs.push(String(chunk))) }) });
    container = await buildContainer(config, { logger });
    storage = await openStorage({ ...storageOptionsOf(config), migrationsRun: false });
    app = createApp({ ...container, logger, config });
  }, 60_000);

  afterAll(async () => {
    await storage?.close();
    await container?.close();
    await drop?.();
  });

  it.each(SIGNUP_CASES)('sign-up with %s: 400, nothing stored, nothing logged', async (_what, body) => {
    const project = await createProject(app);
    const res = await rawPost(app, '/api/auth/signup', body, { 'X-API-Key': project.live });
    expect([res.status, res.body.error]).toEqual([400, 'validation_error']);
    expect(await storage.users.count({ projectId: project.id, environment: 'production' })).toBe(0);
    expect(logs.join('')).not.toContain(MARKER);
    expect(logs.join('')).not.toContain('22P05');
  });

  it('a magic-link verify naming a project with NUL in it is a plain invalid link', async () => {
    const res = await request(app).get(`/api/auth/magic-link/verify?token=ml_live_x&project=${MARKER}%00`);
    expect([res.status, res.body.error]).toEqual([401, 'invalid_magic_link']);
    expect(logs.join('')).not.toContain(MARKER);
  });

  it('the same text well-formed is stored and read back exactly', async () => {
    const project = await createProject(app);
    const res = await rawPost(app, '/api/auth/signup', '{"email":"c@example.com","password":"long enough","meta":{"emoji":"\\ud83d\\ude00","tab":"a\\tb"}}', {
      'X-API-Key': project.live,
    }).expect(201);
    const me = await request(app).get('/api/auth/me').set('X-API-Key', project.live).set('Authorization', `Bearer ${res.body.data.accessToken}`).expect(200);
    expect(me.body.data.user.meta).toEqual({ emoji: '😀', tab: 'a\tb' });
  });
});
