import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { AuthError, isAuthError } from '@svc/core';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';
import { unavailableReason } from './unavailable';

// Real driver failures, each made on a real database, and what the adapter makes of them: one
// AuthError('service_unavailable') with the reason for a database that cannot do the work now;
// the driver's own error, untouched, for a statement that is wrong (a bug, a 500).

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

describe('SQLite failures', () => {
  let dir: string;
  let storage: TypeormStorage;
  let other: TypeormStorage;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-unavailable-'));
    storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite'), timeouts: { lockMs: 200 } });
    // A second connection to the file, as another process (the CLI, a backup) would hold.
    other = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
  });
  afterAll(async () => {
    await other.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("another process's write lock: service_unavailable (lock_timeout) after the busy timeout, in a statement and in a transaction", async () => {
    await other.dataSource.query('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      const failed = await failureOf(storage.database.query("INSERT INTO projects (id) VALUES ('x')"));
      expect(unavailableReason(failed)).toBe('lock_timeout');
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(unavailableReason(await failureOf(storage.database.transaction(async (tx) => tx.query('SELECT 1'))))).toBe('lock_timeout');
      // Readiness says the same, within its own bound.
      expect(unavailableReason(await failureOf(storage.probe(300)))).toBe('lock_timeout');
    } finally {
      await other.dataSource.query('ROLLBACK');
    }
    await expect(storage.probe(300)).resolves.toBeUndefined();
  });

  it('a full database (SQLITE_FULL): service_unavailable (disk_full)', async () => {
    await storage.database.query('CREATE TABLE filler (x text)');
    // max_page_count caps the file where it is: the next page a write needs is refused, as on a full disk.
    const [{ page_count: pages }] = await storage.dataSource.query('PRAGMA page_count');
    await storage.dataSource.query(`PRAGMA max_page_count = ${pages}`);
    try {
      const big = 'x'.repeat(64 * 1024);
      const failed = await failureOf(storage.database.query('INSERT INTO filler (x) VALUES ($1)', [big]));
      expect(unavailableReason(failed)).toBe('disk_full');
    } finally {
      await storage.dataSource.query('PRAGMA max_page_count = 1073741823');
    }
  });

  it('readiness reports a disk with too little room left (the real free space, measured)', async () => {
    await expect(storage.probe(300)).resolves.toBeUndefined();
    const demanding = await openStorage({ sqlitePath: join(dir, 'svc.sqlite'), sqliteMinFreeBytes: Number.MAX_SAFE_INTEGER });
    try {
      expect(unavailableReason(await failureOf(demanding.probe(300)))).toBe('disk_full');
    } finally {
      await demanding.close();
    }
  });

  it('a statement that is wrong stays what it is', async () => {
    const failed = await failureOf(storage.database.query('SELECT * FROM no_such_table'));
    expect(failed).not.toBeInstanceOf(AuthError);
  });
});

describeWithPostgres('PostgreSQL failures', (url) => {
  let storage: TypeormStorage;
  let drop: () => Promise<void>;
  let schema: string;

  beforeAll(async () => {
    const created = await createTestSchema(url);
    schema = created.schema;
    drop = created.drop;
    storage = await openStorage({ databaseUrl: url, schema, timeouts: { lockMs: 300, statementMs: 600 } });
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  async function holding(sql: string, work: () => Promise<void>): Promise<void> {
    const client = new Client({ connectionString: url, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(sql);
      await work();
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end();
    }
  }

  it('55P03 (lock_timeout), also in a transaction and in the readiness probe', async () => {
    await holding('LOCK TABLE users IN ACCESS EXCLUSIVE MODE', async () => {
      expect(unavailableReason(await failureOf(storage.database.query('SELECT id FROM users LIMIT 1')))).toBe('lock_timeout');
      expect(unavailableReason(await failureOf(storage.database.transaction(async (tx) => tx.query('DELETE FROM users'))))).toBe('lock_timeout');
      expect(unavailableReason(await failureOf(storage.probe(1000)))).toBe('lock_timeout');
    });
    await expect(storage.probe(1000)).resolves.toBeUndefined();
  });

  it('57014 (timeout): a statement over the statement timeout', async () => {
    expect(unavailableReason(await failureOf(storage.database.query('SELECT pg_sleep(2)')))).toBe('timeout');
  });

  it('25006 (read_only), while reads go on', async () => {
    const failed = await failureOf(
      storage.database.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        await tx.query('SELECT id FROM users LIMIT 1');
        await tx.query('DELETE FROM users WHERE id = $1', ['00000000-0000-4000-8000-000000000000']);
      }),
    );
    expect(unavailableReason(failed)).toBe('read_only');
    expect(isAuthError(failed, 'service_unavailable')).toBe(true);
  });

  // The server ends the session under the statement (pg_terminate_backend, as a restart or a
  // failover does): it says so first (57P01), then closes. A cut without that word is in
  // pg-transaction.test.ts.
  it('a connection ended under a statement (a restart, a failover): service_unavailable, and the pool goes on', async () => {
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const runs = [() => storage.database.query('SELECT pg_sleep(0.4)'), () => storage.database.transaction((tx) => tx.query('SELECT pg_sleep(0.4)'))];
      for (const run of runs) {
        const pending = failureOf(run());
        let ended = 0;
        while (ended === 0) {
          await sleep(20);
          const { rows } = await admin.query<{ n: string }>(
            "SELECT count(*) AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(0.4)' AND state = 'active') AS ended",
          );
          ended = Number(rows[0].n);
        }
        expect(isAuthError(await pending, 'service_unavailable')).toBe(true);
      }
      expect(await storage.database.query('SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
    } finally {
      await admin.end();
    }
  });

  it('a statement that is wrong stays what it is (a constraint, a syntax error)', async () => {
    expect(await failureOf(storage.database.query('SELEC 1'))).not.toBeInstanceOf(AuthError);
    expect(await failureOf(storage.database.query('INSERT INTO users (id) VALUES (NULL)'))).not.toBeInstanceOf(AuthError);
  });
});
