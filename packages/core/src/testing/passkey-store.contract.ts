import type { TenantScope } from '../domain/environment';
import type { Passkey } from '../domain/passkey';
import type { PasskeyStore } from '../ports/passkey-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

export type PasskeyStoreFactory = () => Promise<{ ports: StoragePorts; passkeys: PasskeyStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-01T00:01:00.000Z');

export function passkeyFixture(userId: string, overrides: Partial<Passkey> = {}): Passkey {
  return {
    id: newId(),
    userId,
    credentialId: Buffer.from(newId()).toString('base64url'),
    publicKey: Buffer.from(`cose-key-${newId()}`).toString('base64url'),
    counter: 0,
    transports: ['internal', 'hybrid'],
    name: 'Laptop',
    createdAt: T0,
    lastUsedAt: null,
    ...overrides,
  };
}

/** Contract every PasskeyStore passes: unique credentials, counter compare-and-set, isolation. */
export function passkeyStoreContract(label: string, factory: PasskeyStoreFactory): void {
  describe(`PasskeyStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<PasskeyStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.passkeys;

    async function seeded(): Promise<{ scope: TenantScope; userId: string }> {
      const scope = await seedScope(subject.ports);
      return { scope, userId: (await seedUser(subject.ports, scope)).id };
    }

    it('stores a passkey as given and refuses its credential id twice in a scope', async () => {
      const { scope, userId } = await seeded();
      const passkey = passkeyFixture(userId, { counter: 4_294_967_295, transports: [] });
      expect(await store().add(scope, passkey)).toBe('created');
      expect(await store().findByCredentialId(scope, passkey.credentialId)).toEqual(passkey);
      const other = await seedUser(subject.ports, scope);
      expect(await store().add(scope, passkeyFixture(other.id, { credentialId: passkey.credentialId }))).toBe('exists');
      expect(await store().listForUser(scope, other.id)).toEqual([]);
    });

    it("lists a user's passkeys oldest first", async () => {
      const { scope, userId } = await seeded();
      const later = passkeyFixture(userId, { createdAt: T1, name: 'Phone' });
      const earlier = passkeyFixture(userId, { createdAt: T0 });
      await store().add(scope, later);
      await store().add(scope, earlier);
      expect((await store().listForUser(scope, userId)).map((p) => p.id)).toEqual([earlier.id, later.id]);
    });

    it('moves the counter forward only, or keeps 0 for counterless authenticators', async () => {
      const { scope, userId } = await seeded();
      const none = passkeyFixture(userId);
      await store().add(scope, none);
      expect(await store().recordUse(scope, none.credentialId, { counter: 0, at: T1 })).toBe(true);
      expect(await store().findByCredentialId(scope, none.credentialId)).toMatchObject({ counter: 0, lastUsedAt: T1 });
      const counting = passkeyFixture(userId, { counter: 5 });
      await store().add(scope, counting);
      for (const counter of [5, 4, 0]) expect(await store().recordUse(scope, counting.credentialId, { counter, at: T1 })).toBe(false);
      expect(await store().findByCredentialId(scope, counting.credentialId)).toMatchObject({ counter: 5, lastUsedAt: null });
      expect(await store().recordUse(scope, counting.credentialId, { counter: 9, at: T1 })).toBe(true);
      expect(await store().findByCredentialId(scope, counting.credentialId)).toMatchObject({ counter: 9, lastUsedAt: T1 });
      expect(await store().recordUse(scope, 'unknown', { counter: 10, at: T1 })).toBe(false);
    });

    it('of concurrent uses with one counter value exactly one wins', async () => {
      const { scope, userId } = await seeded();
      const passkey = passkeyFixture(userId, { counter: 1 });
      await store().add(scope, passkey);
      const results = await Promise.all(Array.from({ length: 10 }, () => store().recordUse(scope, passkey.credentialId, { counter: 2, at: T1 })));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it("removes only the user's own passkey", async () => {
      const { scope, userId } = await seeded();
      const other = await seedUser(subject.ports, scope);
      const passkey = passkeyFixture(userId);
      await store().add(scope, passkey);
      expect(await store().remove(scope, other.id, passkey.id)).toBe(false);
      expect(await store().remove(scope, userId, passkey.id)).toBe(true);
      expect(await store().remove(scope, userId, passkey.id)).toBe(false);
      expect(await store().findByCredentialId(scope, passkey.credentialId)).toBeNull();
    });

    it('never reads or changes another tenant', async () => {
      const { scope, userId } = await seeded();
      const passkey = passkeyFixture(userId, { counter: 1 });
      await store().add(scope, passkey);
      const foreign = [{ ...scope, environment: 'sandbox' as const }, await seedScope(subject.ports)];
      for (const elsewhere of foreign) {
        expect(await store().findByCredentialId(elsewhere, passkey.credentialId)).toBeNull();
        expect(await store().listForUser(elsewhere, userId)).toEqual([]);
        expect(await store().recordUse(elsewhere, passkey.credentialId, { counter: 50, at: T1 })).toBe(false);
        expect(await store().remove(elsewhere, userId, passkey.id)).toBe(false);
      }
      const foreignUser = await seedUser(subject.ports, foreign[1]);
      expect(await store().add(foreign[1], passkeyFixture(foreignUser.id, { credentialId: passkey.credentialId }))).toBe('created');
      expect(await store().findByCredentialId(scope, passkey.credentialId)).toEqual(passkey);
    });
  });
}
