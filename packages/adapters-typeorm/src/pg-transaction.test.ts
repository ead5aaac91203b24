import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { seedScope, seedUser } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';
import { unavailableReason } from './unavailable';

// A transaction's BEGIN goes out with the statement after it (pgTransaction, on the serving pool's
// pipelining connections). Checked on a real server: round trips counted through a relay that
// holds each of the server's answers back, and the advisory lock held by another session.

/** How long the relay holds each chunk of the server's answers: each round trip costs at least this. */
const DELAY_MS = 200;

/**
 * A TCP relay to `target`'s server that passes the client's bytes at once and the server's after
 * DELAY_MS (in order: timers of one delay fire in the order they were set).
 */
async function slowRelay(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const upstreamUrl = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(upstreamUrl.port || 5432), upstreamUrl.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), DELAY_MS));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  return {
    url: url.toString(),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

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

  it('spends no round trip on BEGIN: one statement is two round trips, with a lock three', async () => {
    const relay = await slowRelay(url);
    const slow = await openStorage({ databaseUrl: relay.url, schema, poolSize: 1, migrationsRun: false });
    try {
      // The pool's one connection is opened first, so that only the transactions are timed.
      await slow.database.query('SELECT 1 AS one');
      const timed = async (lock?: string) => {
        const started = performance.now();
        const rows = await slow.database.transaction(async (tx) => tx.query('SELECT 1 AS one'), lock === undefined ? {} : { lock });
        expect(rows).toEqual([{ one: 1 }]);
        return (performance.now() - started) / DELAY_MS;
      };
      // BEGIN with the statement, then COMMIT; waiting for BEGIN's answer first would make three.
      const plain = await timed();
      expect(plain).toBeGreaterThanOrEqual(2);
      expect(plain).toBeLessThan(2.5);
      // BEGIN with the lock, the statement, COMMIT; four before.
      const locked = await timed('relayed-section');
      expect(locked).toBeGreaterThanOrEqual(3);
      expect(locked).toBeLessThan(3.5);
    } finally {
      await slow.close();
      await relay.close();
    }
  });

  it('starts the work only once the lock is granted', async () => {
    await holdSection('held-section');
    let started = false;
    const done = storage.database.transaction(
      async (tx) => {
        started = true;
        return tx.query<{ held: number }>("SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()");
      },
      { lock: 'held-section' },
    );
    await sleep(300);
    expect(started).toBe(false);
    await holder.query('COMMIT');
    // The lock is the transaction's own (an xact lock is held only inside one).
    expect(await done).toEqual([{ held: 1 }]);
    expect(started).toBe(true);
  });

  it("remembers a user's clients under the user's lock, taken by the upsert's own statement", async () => {
    const scope = await seedScope(storage);
    const user = await seedUser(storage, scope);
    const at = new Date('2026-11-30T00:00:00.000Z');
    // The name Database.transaction and the statement both lock: another instance's remember waits too.
    await holdSection(`known-devices:${scope.projectId}:${scope.environment}:${user.id}`);
    let finished = false;
    const remembered = storage.knownDevices.remember(scope, user.id, ['address-print', 'device-print'], { at, keep: 1 }).then(() => {
      finished = true;
    });
    await sleep(300);
    expect(finished).toBe(false);
    await holder.query('COMMIT');
    await remembered;
    // Both fingerprints written in one statement, then trimmed to the one most recently seen (ties by fingerprint).
    expect(await storage.knownDevices.isKnown(scope, user.id, ['address-print'], { seenSince: at })).toBe(true);
    expect(await storage.knownDevices.isKnown(scope, user.id, ['device-print'], { seenSince: at })).toBe(false);
  });

  it('reports a lock that timed out as such, and the connection serves the next transaction', async () => {
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
