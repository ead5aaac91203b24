import { mailOutboxContract, newId, oneTimeTokenStoreContract, seedScope } from '@svc/core/testing';
import { openStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

const T0 = new Date('2026-01-01T00:00:00.000Z');

describeWithPostgres('e-mail flow storage on PostgreSQL', (url) => {
  const postgres = async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 20 });
    return {
      ports: storage,
      oneTimeTokens: storage.oneTimeTokens,
      outbox: storage.outbox,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  };

  oneTimeTokenStoreContract('postgres', postgres);
  mailOutboxContract('postgres', postgres);

  // Two storages = two API instances with their own pools, each running a worker.
  it('shares the outbox between instances: concurrent claims never overlap (SKIP LOCKED)', async () => {
    const { schema, drop } = await createTestSchema(url);
    const a = await openStorage({ databaseUrl: url, schema, poolSize: 6 });
    const b = await openStorage({ databaseUrl: url, schema, poolSize: 6 });
    try {
      const scope = await seedScope(a);
      const ids = Array.from({ length: 60 }, () => newId());
      for (const id of ids) {
        await a.outbox.enqueue(scope, { id, to: 'x@example.test', template: 'magic_link', sealedPayload: 's', createdAt: T0, expiresAt: new Date('2027-01-01T00:00:00.000Z') });
      }
      const now = new Date('2026-01-01T00:00:01.000Z');
      const rounds = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).outbox.claimDue(now, { limit: 7, leaseSeconds: 60 })),
      );
      const claimed = rounds.flat().map((m) => m.id);
      expect(new Set(claimed).size).toBe(claimed.length);
      const rest = await a.outbox.claimDue(now, { limit: 100, leaseSeconds: 60 });
      expect([...claimed, ...rest.map((m) => m.id)].sort()).toEqual([...ids].sort());
    } finally {
      await a.close();
      await b.close();
      await drop();
    }
  });
});
