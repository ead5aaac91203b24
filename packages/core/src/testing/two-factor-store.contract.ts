import type { TenantScope } from '../domain/environment';
import { sha256Hex } from '../domain/secrets';
import type { TwoFactorStore } from '../ports/two-factor-store';
import { at, newId, seedScope, seedUser, type StoragePorts } from './storage-fixture';

export type TwoFactorStoreFactory = () => Promise<{ ports: StoragePorts; twoFactor: TwoFactorStore; close(): Promise<void> }>;

const T0 = at('2026-01-01T00:00:00.000Z');
const T1 = at('2026-01-01T00:01:00.000Z');
const codes = (n: number) => Array.from({ length: n }, () => sha256Hex(newId()));

/** Contract every TwoFactorStore passes: setup states, replay guard, single-use codes, isolation. */
export function twoFactorStoreContract(label: string, factory: TwoFactorStoreFactory): void {
  describe(`TwoFactorStore contract: ${label}`, () => {
    let subject: Awaited<ReturnType<TwoFactorStoreFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const store = () => subject.twoFactor;

    async function enabled(hashes = codes(10), usedStep = 100): Promise<{ scope: TenantScope; userId: string; hashes: string[] }> {
      const scope = await seedScope(subject.ports);
      const { id: userId } = await seedUser(subject.ports, scope);
      expect(await store().beginTotp(scope, userId, { sealedSecret: 'sealed-1', createdAt: T0 })).toBe(true);
      expect(await store().enableTotp(scope, userId, { sealedSecret: 'sealed-1', usedStep, recoveryCodeHashes: hashes, enabledAt: T1 })).toBe(true);
      return { scope, userId, hashes };
    }

    it('keeps setup pending, lets it restart, and enables only the secret that was proved', async () => {
      const scope = await seedScope(subject.ports);
      const { id: userId } = await seedUser(subject.ports, scope);
      expect(await store().findTotp(scope, userId)).toBeNull();
      await store().beginTotp(scope, userId, { sealedSecret: 'old', createdAt: T0 });
      expect(await store().beginTotp(scope, userId, { sealedSecret: 'new', createdAt: T1 })).toBe(true);
      expect(await store().findTotp(scope, userId)).toEqual({
        userId,
        sealedSecret: 'new',
        status: 'pending',
        lastUsedStep: null,
        createdAt: T1,
        enabledAt: null,
      });
      const enable = { usedStep: 7, recoveryCodeHashes: codes(2), enabledAt: T1 };
      expect(await store().useTotpStep(scope, userId, 7)).toBe(false);
      expect(await store().enableTotp(scope, userId, { ...enable, sealedSecret: 'old' })).toBe(false);
      expect(await store().enableTotp(scope, userId, { ...enable, sealedSecret: 'new' })).toBe(true);
      expect(await store().enableTotp(scope, userId, { ...enable, sealedSecret: 'new' })).toBe(false);
      expect(await store().findTotp(scope, userId)).toMatchObject({ status: 'enabled', lastUsedStep: 7, enabledAt: T1 });
      expect(await store().beginTotp(scope, userId, { sealedSecret: 'other', createdAt: T1 })).toBe(false);
      expect((await store().findTotp(scope, userId))?.sealedSecret).toBe('new');
    });

    it('accepts each time step once and never an earlier one', async () => {
      const { scope, userId } = await enabled(codes(1), 100);
      expect(await store().useTotpStep(scope, userId, 100)).toBe(false);
      expect(await store().useTotpStep(scope, userId, 99)).toBe(false);
      expect(await store().useTotpStep(scope, userId, 101)).toBe(true);
      expect(await store().useTotpStep(scope, userId, 101)).toBe(false);
      expect(await store().useTotpStep(scope, userId, 103)).toBe(true);
      expect(await store().useTotpStep(scope, userId, 102)).toBe(false);
      expect((await store().findTotp(scope, userId))?.lastUsedStep).toBe(103);
    });

    it('of concurrent uses of one step exactly one wins', async () => {
      const { scope, userId } = await enabled();
      const results = await Promise.all(Array.from({ length: 10 }, () => store().useTotpStep(scope, userId, 500)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('uses each recovery code once, also under concurrency, and counts what is left', async () => {
      const { scope, userId, hashes } = await enabled(codes(3));
      expect(await store().countRecoveryCodes(scope, userId)).toBe(3);
      expect(await store().useRecoveryCode(scope, userId, hashes[0], T1)).toBe(true);
      expect(await store().useRecoveryCode(scope, userId, hashes[0], T1)).toBe(false);
      expect(await store().useRecoveryCode(scope, userId, sha256Hex('unknown'), T1)).toBe(false);
      const results = await Promise.all(Array.from({ length: 10 }, () => store().useRecoveryCode(scope, userId, hashes[1], T1)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store().countRecoveryCodes(scope, userId)).toBe(1);
    });

    it('a new enrollment replaces the old recovery codes; removal clears everything', async () => {
      const { scope, userId, hashes } = await enabled(codes(2));
      expect(await store().removeTotp(scope, userId)).toBe(true);
      expect(await store().removeTotp(scope, userId)).toBe(false);
      expect(await store().findTotp(scope, userId)).toBeNull();
      expect(await store().countRecoveryCodes(scope, userId)).toBe(0);
      const fresh = codes(2);
      await store().beginTotp(scope, userId, { sealedSecret: 's2', createdAt: T1 });
      await store().enableTotp(scope, userId, { sealedSecret: 's2', usedStep: 1, recoveryCodeHashes: fresh, enabledAt: T1 });
      expect(await store().useRecoveryCode(scope, userId, hashes[0], T1)).toBe(false);
      expect(await store().useRecoveryCode(scope, userId, fresh[0], T1)).toBe(true);
    });

    it('never reads or changes another tenant or user', async () => {
      const { scope, userId, hashes } = await enabled(codes(1));
      const other = await seedUser(subject.ports, scope);
      const foreign = [{ ...scope, environment: 'sandbox' as const }, await seedScope(subject.ports)];
      for (const elsewhere of foreign) {
        expect(await store().findTotp(elsewhere, userId)).toBeNull();
        expect(await store().useTotpStep(elsewhere, userId, 999)).toBe(false);
        expect(await store().useRecoveryCode(elsewhere, userId, hashes[0], T1)).toBe(false);
        expect(await store().removeTotp(elsewhere, userId)).toBe(false);
      }
      expect(await store().useRecoveryCode(scope, other.id, hashes[0], T1)).toBe(false);
      expect(await store().findTotp(scope, other.id)).toBeNull();
      expect(await store().useRecoveryCode(scope, userId, hashes[0], T1)).toBe(true);
    });
  });
}
