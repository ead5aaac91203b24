import type { TenantScope, User } from '@svc/core';
import { seedScope, seedUser, userFixture } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

// Lookups by address made at once outside a unit of work (a burst of mail requests or sign-ins)
// share statements on PostgreSQL (natural-batch.ts). Each caller must hear the user of its own
// address in its own tenant, or nobody; the storage contract covers one lookup at a time.

describeWithPostgres('TypeormUserRepository on PostgreSQL: lookups by address made at once', (url) => {
  let storage: TypeormStorage;
  let drop: () => Promise<void>;
  let scope: TenantScope;
  let other: TenantScope;

  beforeAll(async () => {
    let schema: string;
    ({ schema, drop } = await createTestSchema(url));
    storage = await openStorage({ databaseUrl: url, schema });
    scope = await seedScope(storage);
    other = await seedScope(storage);
  });
  afterAll(async () => {
    await storage?.close();
    await drop?.();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  /** Each statement that read users by address, counted by the Database's `query`. */
  function countLookupStatements(): () => number {
    const query = jest.spyOn(storage.database, 'query');
    return () => query.mock.calls.filter(([sql]) => /FROM users\b.*\bemail = \$3|JOIN users\b/s.test(sql)).length;
  }

  it('answers lookups that arrive together in fewer statements, each caller with the user of its own address and tenant', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, () => seedUser(storage, scope)));
    // The same address in another tenant is another user.
    const twin = await seedUser(storage, other, { email: users[3].email });
    const banned = await seedUser(storage, scope, { bannedAt: new Date('2026-02-01T00:00:00.000Z'), meta: { plan: 'pro' }, passwordHash: null });
    const alone = await Promise.all(users.map((user) => storage.users.findByEmail(scope, user.email)));

    const statements = countLookupStatements();
    const asked: { scope: TenantScope; email: string; expected: User | null }[] = [
      ...users.map((user, i) => ({ scope, email: user.email, expected: alone[i] })),
      { scope: other, email: twin.email, expected: twin },
      { scope, email: banned.email, expected: banned },
      { scope, email: 'nobody@example.com', expected: null },
      // An address of one tenant asked in another finds nobody.
      { scope: other, email: users[0].email, expected: null },
      // The same lookup twice in one burst: both callers hear the user.
      { scope, email: users[5].email, expected: alone[5] },
    ];
    const found = await Promise.all(asked.map((lookup) => storage.users.findByEmail(lookup.scope, lookup.email)));

    // The first went alone; the twelve that arrived while it was in flight went together.
    expect(statements()).toBe(2);
    expect(found).toEqual(asked.map(({ expected }) => expected));
    expect(found[0]).toEqual(users[0]);
    expect(found[8]?.id).toBe(twin.id);
    expect(found[9]).toMatchObject({ id: banned.id, bannedAt: banned.bannedAt, meta: { plan: 'pro' }, passwordHash: null });
  });

  it('keeps a lookup inside a unit of work on its transaction, without waiting for the statement in flight', async () => {
    const known = await seedUser(storage, scope);
    // The next statement (the lookup below, outside any unit) stays in flight until released.
    const query = storage.database.query.bind(storage.database);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    jest.spyOn(storage.database, 'query').mockImplementationOnce(async (sql, params) => {
      await held;
      return query(sql, params);
    });
    const outside = storage.users.findByEmail(scope, known.email);

    const user = userFixture();
    const seen = await storage.database.run(async () => {
      await storage.users.createWithinLimit(scope, user, { limit: null });
      // Through the batch this would wait behind the held statement, then run outside the
      // transaction and miss the user it has not committed yet.
      return storage.users.findByEmail(scope, user.email);
    });
    expect(seen).toEqual(user);
    release();
    expect(await outside).toEqual(known);
  });
});
