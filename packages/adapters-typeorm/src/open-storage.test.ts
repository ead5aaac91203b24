import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { newId, projectFixture, seedScope, seedUser, userFixture } from '@svc/core/testing';
import { DEFAULT_DATABASE_TIMEOUTS } from './database-timeouts';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';
import { migrations } from './migrations';

/** Every bundled migration, oldest first, as TypeORM records it once run. */
const MIGRATION_NAMES = migrations.map((Migration) => new Migration().name);

const T0 = new Date('2026-01-01T00:00:00.000Z');

async function migrationNames(storage: TypeormStorage): Promise<string[]> {
  const rows: { name: string }[] = await storage.dataSource.query('SELECT name FROM migrations ORDER BY id');
  return rows.map((row) => row.name);
}

describe('openStorage on SQLite', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-open-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('builds the schema by migration, never by synchronize', async () => {
    const storage = await openStorage({ sqlitePath: join(dir, 'a', 'b', 'svc.sqlite') });
    try {
      expect(storage.kind).toBe('sqlite');
      expect(storage.dataSource.options.synchronize).toBe(false);
      // openStorage runs the migrations itself (under a lock on PostgreSQL), not TypeORM's initialize().
      expect(storage.dataSource.options.migrationsRun).toBe(false);
      expect(await migrationNames(storage)).toEqual(MIGRATION_NAMES);
      await expect(storage.ping()).resolves.toBeUndefined();
    } finally {
      await storage.close();
    }
  });

  it('turns on WAL, foreign keys and a busy timeout (the lock timeout, default or given)', async () => {
    const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
    const pragma = async (name: string, of = storage) => Object.values((await of.dataSource.query(`PRAGMA ${name}`))[0])[0];
    try {
      expect(await pragma('journal_mode')).toBe('wal');
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBe(DEFAULT_DATABASE_TIMEOUTS.lockMs);
    } finally {
      await storage.close();
    }
    const tuned = await openStorage({ sqlitePath: join(dir, 'svc.sqlite'), timeouts: { lockMs: 1234 } });
    try {
      expect(await pragma('busy_timeout', tuned)).toBe(1234);
    } finally {
      await tuned.close();
    }
  });

  it('keeps its data across a restart and does not migrate twice', async () => {
    const path = join(dir, 'svc.sqlite');
    const first = await openStorage({ sqlitePath: path });
    const scope = await seedScope(first);
    const user = await seedUser(first, scope, { meta: { kept: true } });
    await first.close();

    const second = await openStorage({ sqlitePath: path });
    try {
      expect(await second.users.findById(scope, user.id)).toEqual(user);
      expect(await migrationNames(second)).toEqual(MIGRATION_NAMES);
    } finally {
      await second.close();
    }
  });

  it('cascades deletes from a user to its sessions and refresh tokens', async () => {
    const storage = await openStorage({ sqlitePath: ':memory:' });
    try {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      const session = { id: newId(), userId: user.id, rotationKey: 'k', createdAt: T0, refreshTokenHash: 'h1', refreshExpiresAt: new Date('2027-01-01T00:00:00.000Z') };
      await storage.sessions.create(scope, session);
      expect(await storage.users.delete(scope, user.id)).toBe(true);
      expect(await storage.sessions.isActive(scope, session.id)).toBe(false);
      expect(await storage.sessions.findRefreshToken(scope, 'h1')).toBeNull();
    } finally {
      await storage.close();
    }
  });

  it('refuses a session for a user of another scope (composite foreign key)', async () => {
    const storage = await openStorage({ sqlitePath: ':memory:' });
    try {
      const production = await seedScope(storage);
      const user = await seedUser(storage, production);
      const sandbox = { ...production, environment: 'sandbox' as const };
      const session = { id: newId(), userId: user.id, rotationKey: 'k', createdAt: T0, refreshTokenHash: 'h2', refreshExpiresAt: T0 };
      await expect(storage.sessions.create(sandbox, session)).rejects.toThrow();
      expect(await storage.sessions.isActive(sandbox, session.id)).toBe(false);
    } finally {
      await storage.close();
    }
  });

  it('treats malformed ids and scopes as misses and refuses them on writes', async () => {
    const storage = await openStorage({ sqlitePath: ':memory:' });
    try {
      const scope = await seedScope(storage);
      const badScope = { projectId: 'not-a-uuid', environment: 'production' as const };
      expect(await storage.projects.findById('not-a-uuid')).toBeNull();
      expect(await storage.users.findById(badScope, newId())).toBeNull();
      expect(await storage.users.count(badScope)).toBe(0);
      expect(await storage.sessions.isActive(scope, 'x')).toBe(false);
      expect(await storage.signingKeys.current(badScope)).toBeNull();
      expect(await storage.users.list(scope, { limit: 5, cursor: "' OR 1=1" })).toEqual({ users: [], nextCursor: null });
      await expect(storage.users.createWithinLimit(badScope, userFixture(), { limit: null })).rejects.toThrow(TypeError);
      await expect(storage.projects.create(projectFixture({ id: 'NOT-A-UUID' }))).rejects.toThrow(TypeError);
    } finally {
      await storage.close();
    }
  });

  it('rejects unusable options', async () => {
    await expect(openStorage({ databaseUrl: 'mysql://localhost/x', sqlitePath: ':memory:' })).rejects.toThrow(/postgres/);
    await expect(openStorage({})).rejects.toThrow(/sqlitePath/);
  });
});

describeWithPostgres('openStorage on PostgreSQL', (url) => {
  let schema: string;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    ({ schema, drop } = await createTestSchema(url));
  });
  afterEach(async () => {
    await drop();
  });

  it('migrates into the given schema, never by synchronize, once across restarts', async () => {
    const first = await openStorage({ databaseUrl: url, schema });
    const scope = await seedScope(first);
    const user = await seedUser(first, scope);
    expect(first.kind).toBe('postgres');
    expect(first.dataSource.options.synchronize).toBe(false);
    await first.ping();
    await first.close();

    const second = await openStorage({ databaseUrl: url, schema });
    try {
      expect(await second.users.findById(scope, user.id)).toEqual(user);
      expect(await migrationNames(second)).toEqual(MIGRATION_NAMES);
      const tables: { table_name: string }[] = await second.dataSource.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema]);
      expect(tables.map((t) => t.table_name)).toEqual([
        'api_keys',
        'audit_log',
        'console_sign_outs',
        'known_devices',
        'mail_outbox',
        'migrations',
        'oauth_identities',
        'oauth_providers',
        'oidc_artifacts',
        'oidc_clients',
        'one_time_tokens',
        'passkeys',
        'projects',
        'rate_limited_hours',
        'refresh_tokens',
        'sessions',
        'signing_keys',
        'totp_enrollments',
        'totp_recovery_codes',
        'users',
        'webhook_attempts',
        'webhook_endpoints',
        'webhook_messages',
      ]);
    } finally {
      await second.close();
    }
  });

  it('creates a missing schema and refuses an unsafe schema name', async () => {
    const own = `${schema}_new`;
    const storage = await openStorage({ databaseUrl: url, schema: own });
    try {
      expect(await storage.dataSource.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [own])).toHaveLength(1);
    } finally {
      await storage.dataSource.query(`DROP SCHEMA "${own}" CASCADE`);
      await storage.close();
    }
    await expect(openStorage({ databaseUrl: url, schema: 'x"; DROP TABLE users; --' })).rejects.toThrow(/schema/);
  });

  // Two storages = two API instances with their own pools: the guarantees must hold across them.
  it("gives the outbox's worker a pool of its own: it claims while every connection of the requests' pool is taken", async () => {
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 1, timeouts: { acquireMs: 500 } });
    let release = () => {};
    let held: Promise<void> | undefined;
    try {
      const scope = await seedScope(storage);
      const id = newId();
      await storage.outbox.enqueue(scope, { id, to: 'ada@example.test', template: 'magic_link', sealedPayload: 'sealed', createdAt: T0, expiresAt: new Date('2027-01-01T00:00:00.000Z') });
      // A request holds the requests' only connection for as long as this test needs.
      let taken = () => {};
      const holding = new Promise<void>((resolve) => (taken = resolve));
      held = storage.database.transaction(async (tx) => {
        await tx.query('SELECT 1 AS ok');
        taken();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await holding;
      await expect(storage.outbox.stats()).rejects.toMatchObject({ code: 'service_unavailable' });
      const claimed = await storage.workerOutbox.claimDue(new Date('2026-01-01T00:01:00.000Z'), { limit: 10, leaseSeconds: 60 });
      expect(claimed.map((mail) => mail.id)).toEqual([id]);
    } finally {
      release();
      await held;
      await storage.close();
    }
    // close() ended the worker's pool too.
    await expect(storage.workerOutbox.stats()).rejects.toThrow();
  });

  it("closes a connection left unused for idleMs (0: only when the pool closes), not after pg's own 10 s", async () => {
    const short = await openStorage({ databaseUrl: url, schema, timeouts: { idleMs: 200 } });
    const never = await openStorage({ databaseUrl: url, schema, timeouts: { idleMs: 0 } });
    const observer = new Client({ connectionString: url });
    await observer.connect();
    try {
      const pidOf = async (storage: TypeormStorage) => ((await storage.database.query('SELECT pg_backend_pid() AS pid')) as { pid: number }[])[0].pid;
      const open = async (pid: number) => ((await observer.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount ?? 0) > 0;
      const [neverPid, shortPid] = [await pidOf(never), await pidOf(short)];
      // The backend ends a moment after the pool closes its connection.
      const until = Date.now() + 3000;
      while ((await open(shortPid)) && Date.now() < until) await sleep(100);
      expect(await open(shortPid)).toBe(false);
      expect(await open(neverPid)).toBe(true);
      // The pool opens another for the next statement.
      expect(await pidOf(short)).not.toBe(shortPid);
      expect(DEFAULT_DATABASE_TIMEOUTS.idleMs).toBe(300_000);
    } finally {
      await observer.end();
      await short.close();
      await never.close();
    }
  });

  it('holds the user limit and single-use rotation across two instances', async () => {
    const a = await openStorage({ databaseUrl: url, schema, poolSize: 8 });
    const b = await openStorage({ databaseUrl: url, schema, poolSize: 8 });
    try {
      const scope = await seedScope(a);
      for (let i = 0; i < 2; i += 1) await seedUser(a, scope);
      const creates = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? a : b).users.createWithinLimit(scope, userFixture(), { limit: 3 })));
      expect(creates.filter((r) => r.status === 'created')).toHaveLength(1);
      expect(await b.users.count(scope)).toBe(3);

      const [user] = (await a.users.list(scope, { limit: 1 })).users;
      const session = { id: newId(), userId: user.id, rotationKey: 'k', createdAt: T0, refreshTokenHash: newId(), refreshExpiresAt: new Date('2027-01-01T00:00:00.000Z') };
      await a.sessions.create(scope, session);
      const now = new Date('2026-01-02T00:00:00.000Z');
      const rotations = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).sessions.rotate(scope, { presentedHash: session.refreshTokenHash, successorHash: newId(), now, expiresAt: session.refreshExpiresAt, reuseGraceSeconds: 0 }),
        ),
      );
      expect(rotations.filter((r) => r.status === 'rotated')).toHaveLength(1);
      expect(rotations.filter((r) => r.status === 'reused')).toHaveLength(19);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
