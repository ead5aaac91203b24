import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';
import { unavailableReason } from './unavailable';

// A transaction's BEGIN and advisory lock go out with its first statement (pgTransaction, on the
// serving pool's pipelining connections): checked here on a real server, with the lock held by
// another session so that the order on the wire can be seen.

describeWithPostgres('a transaction on the serving pool', (url) => {
  let storage: TypeormStorage;
  let schema: string;
  let drop: () => Promise<void>;
  let holder: Client;

  beforeAll(async () => {
    const created = await createTestSchema(url);
    drop = created.drop;
    schema = created.schema;
    storage = await openStorage({ databaseUrl: url, schema, timeouts: { lockMs: 2000, statementMs: 4000 } });
  });
  beforeEach(async () => {
    holder = new Client({ connectionString: url });
    await holder.connect();
  });
  afterEach(async () => {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end();
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });

  /** Another session takes the section's lock and keeps it until its transaction ends. */
  async function holdSection(name: string): Promise<void> {
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [name]);
  }

  it("starts its work before the lock is granted, and the work's statements run once it is, inside the transaction", async () => {
    await holdSection('pipelined-section');
    let started!: () => void;
    const workStarted = new Promise<void>((resolve) => (started = resolve));
    const done = storage.database.transaction(
      async (tx) => {
        started();
        // Run by the server after BEGIN and the lock: the lock is granted to this session.
        return tx.query<{ held: number }>("SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()");
      },
      { lock: 'pipelined-section' },
    );
    // With BEGIN and the lock waited for one after the other, the work would start only after the
    // holder lets go, which it does only once the work has started.
    const first = await Promise.race([workStarted.then(() => 'work' as const), sleep(1000).then(() => 'nothing' as const)]);
    expect(first).toBe('work');
    await holder.query('COMMIT');
    const [row] = await done;
    expect(row.held).toBe(1);
  });

  it('reports a lock that timed out as such, not the aborted statement sent behind it, and the connection serves the next transaction', async () => {
    const quick = await openStorage({ databaseUrl: url, schema, poolSize: 1, timeouts: { lockMs: 200, statementMs: 1000 } });
    try {
      await holdSection('timed-out-section');
      const failed = await quick.database
        .transaction(async (tx) => tx.query('SELECT 1 AS one'), { lock: 'timed-out-section' })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(unavailableReason(failed)).toBe('lock_timeout');
      await holder.query('ROLLBACK');
      // The one connection was rolled back, not left inside the aborted transaction.
      await expect(quick.database.transaction(async (tx) => tx.query('SELECT 1 AS one'), { lock: 'timed-out-section' })).resolves.toEqual([{ one: 1 }]);
    } finally {
      await quick.close();
    }
  });
});
