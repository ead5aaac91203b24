import type { TenantScope } from '../domain/environment';
import type { SigningKeyRecord } from '../domain/signing-key';
import { at, newId, seedScope, useStorage, type StorageFactory } from './storage-fixture';

/** Contract every SigningKeyStore passes. */
export function signingKeyStoreContract(label: string, factory: StorageFactory): void {
  describe(`SigningKeyStore contract: ${label}`, () => {
    const ports = useStorage(factory);

    const keyFor = (scope: TenantScope, createdAt: string): SigningKeyRecord => ({
      kid: newId(),
      ...scope,
      publicKeyPem: `-----BEGIN PUBLIC KEY-----\n${newId()}\n-----END PUBLIC KEY-----\n`,
      encryptedPrivateKey: `v1.${newId()}`,
      createdAt: at(createdAt),
      retiredAt: null,
    });

    it('has no current key before the first rotation', async () => {
      expect(await ports().signingKeys.current(await seedScope(ports()))).toBeNull();
    });

    it('answers some current key of any scope once one is stored', async () => {
      const scope = await seedScope(ports());
      await ports().signingKeys.rotate(scope, keyFor(scope, '2026-01-01T00:00:00.000Z'));
      const some = await ports().signingKeys.anyCurrent();
      expect(some?.retiredAt).toBeNull();
      expect(await ports().signingKeys.current({ projectId: some!.projectId, environment: some!.environment })).toEqual(some);
    });

    it('rotation retires the previous key at the new key creation time', async () => {
      const scope = await seedScope(ports());
      const first = keyFor(scope, '2026-01-01T00:00:00.000Z');
      const second = keyFor(scope, '2026-01-02T00:00:00.000Z');
      await ports().signingKeys.rotate(scope, first);
      expect(await ports().signingKeys.current(scope)).toEqual(first);
      await ports().signingKeys.rotate(scope, second);
      expect(await ports().signingKeys.current(scope)).toEqual(second);
      expect(await ports().signingKeys.findByKid(scope, first.kid)).toEqual({ ...first, retiredAt: second.createdAt });
    });

    it('publishes the current key and keys retired since the horizon, newest first', async () => {
      const scope = await seedScope(ports());
      const a = keyFor(scope, '2026-01-01T00:00:00.000Z');
      const b = keyFor(scope, '2026-01-02T00:00:00.000Z');
      const c = keyFor(scope, '2026-01-03T00:00:00.000Z');
      for (const key of [a, b, c]) await ports().signingKeys.rotate(scope, key);
      const published = await ports().signingKeys.listPublished(scope, at('2026-01-02T12:00:00.000Z'));
      expect(published.map((k) => k.kid)).toEqual([c.kid, b.kid]);
    });

    it('keeps scopes apart', async () => {
      const production = await seedScope(ports());
      const sandbox = { ...production, environment: 'sandbox' as const };
      const key = keyFor(production, '2026-01-01T00:00:00.000Z');
      await ports().signingKeys.rotate(production, key);
      expect(await ports().signingKeys.current(sandbox)).toBeNull();
      expect(await ports().signingKeys.findByKid(sandbox, key.kid)).toBeNull();
      expect(await ports().signingKeys.listPublished(sandbox, at('2000-01-01T00:00:00.000Z'))).toEqual([]);
      const other = await seedScope(ports());
      expect(await ports().signingKeys.findByKid(other, key.kid)).toBeNull();
    });
  });
}
