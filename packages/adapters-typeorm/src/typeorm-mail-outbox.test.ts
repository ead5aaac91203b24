import { randomBytes } from 'node:crypto';
import type { NewOneTimeToken, NewOutboxMail, TenantScope } from '@svc/core';
import { newId, seedScope, seedUser } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

// Link mails enqueued at once outside a unit of work (the mail requests, which answer before their
// work) share statements on PostgreSQL (natural-batch.ts). What they write must be what one
// statement per mail writes, superseding included; the storage contract covers one mail at a time.

const T0 = new Date('2026-03-01T10:00:00.000Z');
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function linkMail(to: string, at: Date): NewOutboxMail {
  return { id: newId(), to, template: 'magic_link', sealedPayload: `sealed-${randomBytes(8).toString('hex')}`, createdAt: at, expiresAt: later(900) };
}

function linkToken(userId: string, at: Date, data: Record<string, unknown> = {}): NewOneTimeToken {
  return { tokenHash: randomBytes(16).toString('hex'), purpose: 'magic_link', userId, data, createdAt: at, expiresAt: later(900) };
}

describeWithPostgres('TypeormMailOutbox on PostgreSQL: link mails enqueued at once', (url) => {
  let storage: TypeormStorage;
  let drop: () => Promise<void>;
  let scope: TenantScope;

  beforeAll(async () => {
    let schema: string;
    ({ schema, drop } = await createTestSchema(url));
    storage = await openStorage({ databaseUrl: url, schema });
    scope = await seedScope(storage);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** Each statement that inserted link mails, counted by the Database's `query`. */
  function countEnqueueStatements(): () => number {
    const query = jest.spyOn(storage.database, 'query');
    return () => query.mock.calls.filter(([sql]) => sql.includes('INSERT INTO mail_outbox')).length;
  }

  const tokensOf = (userId: string) =>
    storage.database.query<{ token_hash: string; consumed_at: Date | null; data: Record<string, unknown> }>(
      'SELECT token_hash, consumed_at, data FROM one_time_tokens WHERE user_id = $1 ORDER BY created_at, token_hash',
      [userId],
    );

  it('writes mails that arrive together in fewer statements, each row as a statement of its own writes it', async () => {
    const users = await Promise.all(Array.from({ length: 12 }, () => seedUser(storage, scope)));
    // Every user already has an open link, which the new one supersedes.
    for (const user of users) await storage.outbox.enqueue(scope, linkMail(user.email, T0), { token: { token: linkToken(user.id, T0), supersede: true } });
    const statements = countEnqueueStatements();
    const writes = users.map((user, i) => ({ user, mail: linkMail(user.email, later(60)), token: linkToken(user.id, later(60), { codeHash: `code-${i}` }) }));
    await Promise.all(writes.map(({ mail, token }) => storage.outbox.enqueue(scope, mail, { token: { token, supersede: true } })));

    // The first went alone; the eleven that arrived while it was in flight went together.
    expect(statements()).toBe(2);
    for (const { user, mail, token } of writes) {
      const [stored] = await storage.database.query<{ recipient: string; template: string; sealed_payload: string; status: string; created_at: Date; expires_at: Date; next_attempt_at: Date }>(
        'SELECT recipient, template, sealed_payload, status, created_at, expires_at, next_attempt_at FROM mail_outbox WHERE id = $1',
        [mail.id],
      );
      expect(stored).toEqual({
        recipient: user.email,
        template: 'magic_link',
        sealed_payload: mail.sealedPayload,
        status: 'pending',
        created_at: mail.createdAt,
        expires_at: mail.expiresAt,
        next_attempt_at: mail.createdAt,
      });
      const tokens = await tokensOf(user.id);
      expect(tokens).toHaveLength(2);
      // The older link consumed when the new one was written, the new one open with its data.
      expect(tokens[0].consumed_at).toEqual(later(60));
      expect(tokens[1]).toEqual({ token_hash: token.tokenHash, consumed_at: null, data: token.data });
    }
  });

  it("keeps a user's two links apart, so the later one supersedes the earlier as one statement each would", async () => {
    const [ada, bob] = await Promise.all([seedUser(storage, scope), seedUser(storage, scope)]);
    const statements = countEnqueueStatements();
    const first = linkToken(bob.id, later(1));
    const adaEarlier = linkToken(ada.id, later(2));
    const adaLater = linkToken(ada.id, later(3));
    // bob's goes alone; ada's two arrive while it is in flight and must not share a statement.
    await Promise.all(
      [first, adaEarlier, adaLater].map((token) => storage.outbox.enqueue(scope, linkMail(token.userId === ada.id ? ada.email : bob.email, token.createdAt), { token: { token, supersede: true } })),
    );
    expect(statements()).toBe(3);
    const tokens = await tokensOf(ada.id);
    expect(tokens.map(({ token_hash, consumed_at }) => ({ token_hash, consumed_at }))).toEqual([
      { token_hash: adaEarlier.tokenHash, consumed_at: later(3) },
      { token_hash: adaLater.tokenHash, consumed_at: null },
    ]);
  });

  it('answers each caller for its own mail when a statement of several is refused', async () => {
    const users = await Promise.all(Array.from({ length: 3 }, () => seedUser(storage, scope)));
    const taken = linkToken(users[0].id, T0);
    await storage.outbox.enqueue(scope, linkMail(users[0].email, T0), { token: { token: taken, supersede: false } });
    const writes = [
      { mail: linkMail(users[0].email, later(5)), token: linkToken(users[0].id, later(5)) },
      // The same token hash again: the primary key refuses it, and with it the statement it shares.
      { mail: linkMail(users[1].email, later(5)), token: { ...linkToken(users[1].id, later(5)), tokenHash: taken.tokenHash } },
      { mail: linkMail(users[2].email, later(5)), token: linkToken(users[2].id, later(5)) },
    ];
    const outcomes = await Promise.allSettled(writes.map(({ mail, token }) => storage.outbox.enqueue(scope, mail, { token: { token, supersede: true } })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const stored = await storage.database.query<{ id: string }>('SELECT id FROM mail_outbox WHERE id = ANY($1::uuid[])', [writes.map(({ mail }) => mail.id)]);
    expect(stored.map(({ id }) => id).sort()).toEqual([writes[0].mail.id, writes[2].mail.id].sort());
  });

  it('writes on the transaction of an open unit of work, and is undone with it', async () => {
    const user = await seedUser(storage, scope);
    const statements = countEnqueueStatements();
    const mails = [linkMail(user.email, later(7)), linkMail(user.email, later(8))];
    const work = storage.database.run(async () => {
      await Promise.all(mails.map((mail, i) => storage.outbox.enqueue(scope, mail, { token: { token: linkToken(user.id, later(7 + i)), supersede: false } })));
      throw new Error('the change this mail belongs to failed');
    });
    await expect(work).rejects.toThrow('the change this mail belongs to failed');
    // One statement each, on the unit's connection: none waited for a batch outside it.
    expect(statements()).toBe(2);
    expect(await storage.database.query('SELECT id FROM mail_outbox WHERE recipient = $1', [user.email])).toEqual([]);
    expect(await tokensOf(user.id)).toEqual([]);
  });
});
