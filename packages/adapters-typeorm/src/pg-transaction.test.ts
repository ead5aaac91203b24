import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { seedScope, seedUser } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';
import { LOCK_SECTION } from './sql';
import { unavailableReason } from './unavailable';

// A transaction's BEGIN goes out with the statement after it (pgTransaction, on the serving pool's
// pipelining connections). Checked on a real server: round trips counted by a relay between the
// pool and the server, and the advisory lock held by another session.

/** How long the relay holds each chunk of the server's answers, so that no answer can arrive before the client has sent what it sends at once. */
const DELAY_MS = 50;

/**
 * A TCP relay to `target`'s server that passes the client's bytes at once and the server's after
 * DELAY_MS (in order: timers of one delay fire in the order they were set). `roundTrips` counts
 * the times the client sent after an answer had reached it: bytes sent without waiting for an
 * answer (in one run of the event loop, before any of the relay's timers) count once.
 */
async function countingRelay(target: string): Promise<{ url: string; roundTrips: number; close(): Promise<void> }> {
  const upstreamUrl = new URL(target);
  const sockets = new Set<Socket>();
  let answered = true;
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
    client.on('data', (chunk: Buffer) => {
      if (answered) relay.roundTrips += 1;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) =>
      setTimeout(() => {
        answered = true;
        client.write(chunk);
      }, DELAY_MS),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no port');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(address.port);
  const relay = {
    url: url.toString(),
    roundTrips: 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return relay;
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
    await holder.query(LOCK_SECTION, [name]);
  }

  it('spends no round trip on BEGIN: one statement is two round trips, with a lock three', async () => {
    const relay = await countingRelay(url);
    const slow = await openStorage({ databaseUrl: relay.url, schema, poolSize: 1, migrationsRun: false });
    try {
      // The pool's one connection is opened first, so that only the transactions are counted.
      await slow.database.query('SELECT 1 AS one');
      const counted = async (lock?: string) => {
        const before = relay.roundTrips;
        const rows = await slow.database.transaction(async (tx) => tx.query('SELECT 1 AS one'), lock === undefined ? {} : { lock });
        expect(rows).toEqual([{ one: 1 }]);
        return relay.roundTrips - before;
      };
      // BEGIN with the statement, then COMMIT; waiting for BEGIN's answer first would make three.
      expect(await counted()).toBe(2);
      // BEGIN with the lock, the statement, COMMIT; four before.
      expect(await counted('relayed-section')).toBe(3);
    } finally {
      await slow.close();
      await relay.close();
    }
  });

  // pg-pool listens for a connection's 'error' only while the connection is idle in the pool; one
  // that ends while handed out also emits it on its client, and unheard that event ends the process.
  it('a connection cut while it is handed out (a restart, a failover): the work fails as service_unavailable, and nothing else is thrown', async () => {
    const relay = await countingRelay(url);
    const cut = await openStorage({ databaseUrl: relay.url, schema, poolSize: 1, migrationsRun: false });
    try {
      await cut.database.query('SELECT 1 AS one');
      const work = cut.database.transaction(async (tx) => {
        await tx.query('SELECT 1 AS one');
        await relay.close();
        // The cut reaches the client before its next statement.
        await sleep(200);
        return tx.query('SELECT 2 AS two');
      });
      await expect(work).rejects.toMatchObject({ code: 'service_unavailable' });
    } finally {
      await cut.close();
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
