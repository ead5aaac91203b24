import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { migrationNames, pendingMigrations, runMigrations, type OpenStorageOptions } from '@svc/adapters-typeorm';
import { createTestSchema, describeWithPostgres, firstReleaseDataSource, type TestDatabase } from '@svc/adapters-typeorm/testing';
import { createApp } from '../src/http/app';
import { runCli } from '../src/cli';
import { loadConfig } from '../src/composition/config';
import { buildContainer } from '../src/composition/container';
import { resolveSecrets } from '../src/composition/dev-secrets';
import { createLogger } from '../src/composition/logger';
import { createFirstReleaseDatabase, type FirstReleaseData } from './support/first-schema';

// A database made by the first migration, with data written by that release, upgraded
// by `svc migrate` to today's schema; the data must survive, today's service must work on it, and
// the previous release must still start on the expanded schema (expand, then contract).

const ROOT = resolve(__dirname, '../../..');
const MASTER_KEY = Buffer.alloc(32, 5);
const ADMIN = 'upgrade-test-admin-token-0123456789abcdef';
const [FIRST, ...LATER] = migrationNames();

/**
 * The service of today on the upgraded database: what a client of the old release still holds must
 * work. It runs as an operator runs it once no instance of the old release is left: with refresh
 * tokens that carry their issue time (SVC_REFRESH_TOKEN_ISSUE_TIME).
 */
async function expectServiceWorksOn(env: Record<string, string>, old: FirstReleaseData): Promise<void> {
  const settings = { SVC_ADMIN_TOKEN: ADMIN, SVC_MASTER_KEY: MASTER_KEY.toString('hex'), SVC_BCRYPT_COST: '4', SVC_REFRESH_TOKEN_ISSUE_TIME: 'true' };
  const { config } = await resolveSecrets(loadConfig({ ...env, ...settings }));
  const container = await buildContainer(config);
  try {
    const app = createApp({ ...container, logger: createLogger({ level: 'silent' }), config });
    const key = { 'X-API-Key': old.apiKey };
    const login = await request(app).post('/api/auth/login').set(key).send({ email: old.email, password: old.password }).expect(200);
    expect(login.body.data.user).toMatchObject({ id: old.userId, email: old.email, meta: { plan: 'old', since: 'v1' } });
    const me = await request(app).get('/api/auth/me').set(key).set('Authorization', `Bearer ${login.body.data.accessToken}`).expect(200);
    expect(me.body.data.user).toMatchObject({ id: old.userId, emailVerified: false });
    // The session the first release issued (its token a bare secret) rotates under today's code,
    // into a token that carries its issue time, and on from there.
    const rotated = await request(app).post('/api/auth/refresh').set(key).send({ refreshToken: old.refreshToken }).expect(200);
    expect(rotated.body.data.refreshToken).toMatch(/^[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/);
    await request(app).post('/api/auth/refresh').set(key).send({ refreshToken: rotated.body.data.refreshToken }).expect(200);
    const jwks = await request(app).get(`/api/projects/${old.projectId}/production/jwks.json`).expect(200);
    expect(jwks.body.keys.map((jwk: { kid: string }) => jwk.kid)).toContain(old.kid);
    // New rows use the new columns: a sign-up merges the old project's default meta.
    const signup = await request(app).post('/api/auth/signup').set(key).send({ email: 'grace@example.com', password: 'another long one' }).expect(201);
    expect(signup.body.data.user.meta).toEqual({ plan: 'old' });
  } finally {
    await container.close();
  }
}

/** The previous release, reopened on the upgraded schema: it starts, finds nothing to run, and reads its rows. */
async function expectPreviousReleaseStillStarts(where: TestDatabase, old: FirstReleaseData): Promise<void> {
  const previous = firstReleaseDataSource(where);
  await previous.initialize();
  try {
    expect(await previous.runMigrations({ transaction: 'all' })).toEqual([]);
    const rows = await previous.query(`SELECT id, email, password_hash FROM users WHERE id = ${'sqlitePath' in where ? '?' : '$1'}`, [old.userId]);
    expect(rows).toHaveLength(1);
  } finally {
    await previous.destroy();
  }
}

describe('upgrading a first-release database on SQLite', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-upgrade-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('svc migrate --check lists what is pending, svc migrate runs it, and the data and the service work', async () => {
    const sqlitePath = join(dir, 'svc.sqlite');
    const old = await createFirstReleaseDatabase({ sqlitePath }, MASTER_KEY);
    const env = { SVC_DATA_DIR: dir };

    // A pipeline that migrates first: the new code refuses to serve on the old schema.
    const { config } = await resolveSecrets(loadConfig({ ...env, SVC_MIGRATE_ON_START: 'false', SVC_ADMIN_TOKEN: ADMIN, SVC_MASTER_KEY: MASTER_KEY.toString('hex') }));
    await expect(buildContainer(config)).rejects.toThrow(`${LATER.length} migration(s) pending`);

    // The real command line, as `pnpm svc migrate` runs it (configuration from the environment).
    const svc = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/index.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: '', ...env },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const check = svc('migrate', '--check');
    expect({ status: check.status, out: JSON.parse(check.stdout) }).toEqual({ status: 1, out: { upToDate: false, pending: LATER } });
    const migrate = svc('migrate');
    expect({ status: migrate.status, out: JSON.parse(migrate.stdout), err: migrate.stderr }).toEqual({ status: 0, out: { ran: LATER }, err: '' });
    expect(await pendingMigrations({ sqlitePath })).toEqual([]);

    await expectPreviousReleaseStillStarts({ sqlitePath }, old);
    await expectServiceWorksOn(env, old);
  }, 120_000);

  it('--check changes nothing: a missing database stays missing', async () => {
    const sqlitePath = join(dir, 'never', 'svc.sqlite');
    expect(await pendingMigrations({ sqlitePath })).toEqual([FIRST, ...LATER]);
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});

describeWithPostgres('upgrading a first-release database on PostgreSQL', (url) => {
  let schema: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ schema, drop } = await createTestSchema(url));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('migrates under the lock once, keeps the data, and the service works on it', async () => {
    const where = { databaseUrl: url, schema };
    const old = await createFirstReleaseDatabase(where, MASTER_KEY);
    const options: OpenStorageOptions = where;
    const out: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: (text: string) => out.push(text) };
    const migrator = () => ({ pending: () => pendingMigrations(options), run: () => runMigrations(options) });
    const noService = async () => {
      throw new Error('migrate must not open the service');
    };

    expect(await runCli(['migrate', '--check'], io, noService, migrator)).toBe(1);
    expect(JSON.parse(out.pop()!)).toEqual({ upToDate: false, pending: LATER });
    // Two pipelines (or replicas) at once: the advisory lock lets one run, the other finds nothing.
    const both = await Promise.all([runMigrations(options), runMigrations(options)]);
    expect(both.map((ran) => ran.length).sort()).toEqual([0, LATER.length]);
    expect(await runCli(['migrate'], io, noService, migrator)).toBe(0);
    expect(JSON.parse(out.pop()!)).toEqual({ ran: [] });
    expect(await runCli(['migrate', '--check'], io, noService, migrator)).toBe(0);
    expect(JSON.parse(out.pop()!)).toEqual({ upToDate: true, pending: [] });

    await expectPreviousReleaseStillStarts(where, old);
    await expectServiceWorksOn({ DATABASE_URL: url, SVC_DATABASE_SCHEMA: schema, SVC_DATA_DIR: join(tmpdir(), 'svc-upgrade-unused') }, old);
  }, 120_000);
});
