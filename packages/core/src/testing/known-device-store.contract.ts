import type { TenantScope } from '../domain/environment';
import type { KnownDeviceStore } from '../ports/known-device-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

export type KnownDeviceStoreFactory = () => Promise<{ ports: StoragePorts; knownDevices: KnownDeviceStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-02T00:00:00.000Z');
const T2 = at('2026-01-03T00:00:00.000Z');
const LONG_AGO = at('2025-01-01T00:00:00.000Z');
const fingerprint = () => `fp-${newId()}`;

/** Contract every KnownDeviceStore passes: per tenant and user, last-seen windows, bounded, purged. */
export function knownDeviceStoreContract(label: string, factory: KnownDeviceStoreFactory): void {
  describe(`KnownDeviceStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<KnownDeviceStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.knownDevices;

    async function seeded(): Promise<{ scope: TenantScope; userId: string }> {
      const scope = await seedScope(subject.ports);
      return { scope, userId: (await seedUser(subject.ports, scope)).id };
    }

    it('knows what it was told, for that user only', async () => {
      const { scope, userId } = await seeded();
      const other = await seedUser(subject.ports, scope);
      const [a, b] = [fingerprint(), fingerprint()];
      expect(await store().isKnown(scope, userId, [a], { seenSince: LONG_AGO })).toBe(false);
      await store().remember(scope, userId, [a, b], { at: T0, keep: 20 });
      expect(await store().isKnown(scope, userId, [a], { seenSince: LONG_AGO })).toBe(true);
      expect(await store().isKnown(scope, userId, [fingerprint(), b], { seenSince: LONG_AGO })).toBe(true);
      expect(await store().isKnown(scope, userId, [fingerprint()], { seenSince: LONG_AGO })).toBe(false);
      expect(await store().isKnown(scope, userId, [], { seenSince: LONG_AGO })).toBe(false);
      expect(await store().isKnown(scope, other.id, [a], { seenSince: LONG_AGO })).toBe(false);
    });

    it('keeps tenants apart (another project, the other environment)', async () => {
      const { scope, userId } = await seeded();
      const a = fingerprint();
      await store().remember(scope, userId, [a], { at: T0, keep: 20 });
      const elsewhere = await seedScope(subject.ports);
      expect(await store().isKnown(elsewhere, userId, [a], { seenSince: LONG_AGO })).toBe(false);
      expect(await store().isKnown({ ...scope, environment: 'sandbox' }, userId, [a], { seenSince: LONG_AGO })).toBe(false);
    });

    it('counts from the last sign-in: a newer one renews an entry', async () => {
      const { scope, userId } = await seeded();
      const a = fingerprint();
      await store().remember(scope, userId, [a], { at: T0, keep: 20 });
      expect(await store().isKnown(scope, userId, [a], { seenSince: T1 })).toBe(false);
      await store().remember(scope, userId, [a], { at: T2, keep: 20 });
      expect(await store().isKnown(scope, userId, [a], { seenSince: T1 })).toBe(true);
      expect(await store().isKnown(scope, userId, [a], { seenSince: T2 })).toBe(true);
    });

    it('keeps only the most recently seen entries of a user', async () => {
      const { scope, userId } = await seeded();
      const other = await seedUser(subject.ports, scope);
      const otherFingerprint = fingerprint();
      await store().remember(scope, other.id, [otherFingerprint], { at: T0, keep: 3 });
      const fingerprints = Array.from({ length: 5 }, fingerprint);
      for (let i = 0; i < fingerprints.length; i += 1) {
        await store().remember(scope, userId, [fingerprints[i]], { at: new Date(T0.getTime() + i * 60_000), keep: 3 });
      }
      const known = await Promise.all(fingerprints.map((f) => store().isKnown(scope, userId, [f], { seenSince: LONG_AGO })));
      expect(known).toEqual([false, false, true, true, true]);
      // A renewed old entry stays; the least recently seen goes instead. Other users are untouched.
      await store().remember(scope, userId, [fingerprints[2]], { at: T2, keep: 3 });
      await store().remember(scope, userId, [fingerprints[0]], { at: T2, keep: 3 });
      const after = await Promise.all(fingerprints.map((f) => store().isKnown(scope, userId, [f], { seenSince: LONG_AGO })));
      expect(after).toEqual([true, false, true, false, true]);
      expect(await store().isKnown(scope, other.id, [otherFingerprint], { seenSince: LONG_AGO })).toBe(true);
    });

    it('concurrent sign-ins from the same client never fail and leave one entry', async () => {
      const { scope, userId } = await seeded();
      const a = fingerprint();
      const b = fingerprint();
      await Promise.all(Array.from({ length: 10 }, (_, i) => store().remember(scope, userId, [a, b], { at: new Date(T0.getTime() + i), keep: 2 })));
      expect(await store().isKnown(scope, userId, [a], { seenSince: LONG_AGO })).toBe(true);
      expect(await store().isKnown(scope, userId, [b], { seenSince: LONG_AGO })).toBe(true);
    });

    it("forgets every client of one user, and only that user's", async () => {
      const { scope, userId } = await seeded();
      const other = await seedUser(subject.ports, scope);
      const sandbox = { ...scope, environment: 'sandbox' as const };
      const sandboxUser = await seedUser(subject.ports, sandbox);
      const [a, b, c, d] = [fingerprint(), fingerprint(), fingerprint(), fingerprint()];
      await store().remember(scope, userId, [a, b], { at: T0, keep: 20 });
      await store().remember(scope, other.id, [c], { at: T0, keep: 20 });
      await store().remember(sandbox, sandboxUser.id, [d], { at: T0, keep: 20 });
      await store().forgetUser(scope, userId);
      expect(await store().isKnown(scope, userId, [a, b], { seenSince: LONG_AGO })).toBe(false);
      expect(await store().isKnown(scope, other.id, [c], { seenSince: LONG_AGO })).toBe(true);
      expect(await store().isKnown(sandbox, sandboxUser.id, [d], { seenSince: LONG_AGO })).toBe(true);
      // Forgetting nobody, or a malformed id, is no error; the user can be known again afterwards.
      await store().forgetUser(scope, userId);
      await store().forgetUser(scope, 'not-a-user-id');
      await store().remember(scope, userId, [a], { at: T1, keep: 20 });
      expect(await store().isKnown(scope, userId, [a], { seenSince: LONG_AGO })).toBe(true);
    });

    it('purges entries last seen before a cutoff, over every tenant, in batches', async () => {
      const old = at('2020-06-01T00:00:00.000Z');
      const cutoff = at('2020-07-01T00:00:00.000Z');
      const first = await seeded();
      const second = await seeded();
      const [a, b, c, fresh] = [fingerprint(), fingerprint(), fingerprint(), fingerprint()];
      await store().remember(first.scope, first.userId, [a, b], { at: old, keep: 20 });
      await store().remember(second.scope, second.userId, [c], { at: old, keep: 20 });
      await store().remember(second.scope, second.userId, [fresh], { at: T0, keep: 20 });
      expect(await store().deleteSeenBefore(cutoff, 2)).toBe(2);
      expect(await store().deleteSeenBefore(cutoff, 2)).toBe(1);
      expect(await store().deleteSeenBefore(cutoff, 2)).toBe(0);
      for (const [scope, userId, f] of [
        [first.scope, first.userId, a],
        [first.scope, first.userId, b],
        [second.scope, second.userId, c],
      ] as const) {
        expect(await store().isKnown(scope, userId, [f], { seenSince: at('2000-01-01T00:00:00.000Z') })).toBe(false);
      }
      expect(await store().isKnown(second.scope, second.userId, [fresh], { seenSince: LONG_AGO })).toBe(true);
    });
  });
}
