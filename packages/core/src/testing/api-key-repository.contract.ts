import type { ApiKeyRecord } from '../domain/api-key';
import { sha256Hex } from '../domain/secrets';
import { at, newId, seedScope, useStorage, type StorageFactory } from './storage-fixture';

/** Contract every ApiKeyRepository passes. */
export function apiKeyRepositoryContract(label: string, factory: StorageFactory): void {
  describe(`ApiKeyRepository contract: ${label}`, () => {
    const ports = useStorage(factory);

    const keyFor = (projectId: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
      id: newId(),
      projectId,
      environment: 'production',
      keyHash: sha256Hex(newId()),
      suffix: 'abcd',
      createdAt: at('2026-01-01T00:00:00.000Z'),
      revokedAt: null,
      ...overrides,
    });

    it('finds a key by its hash, and nothing by another hash', async () => {
      const { projectId } = await seedScope(ports());
      const key = keyFor(projectId, { environment: 'sandbox' });
      await ports().apiKeys.create(key);
      expect(await ports().apiKeys.findByHash(key.keyHash)).toEqual(key);
      expect(await ports().apiKeys.findByHash(sha256Hex('other'))).toBeNull();
    });

    it('lists the keys of one project only, oldest first', async () => {
      const a = await seedScope(ports());
      const b = await seedScope(ports());
      const second = keyFor(a.projectId, { createdAt: at('2026-01-02T00:00:00.000Z') });
      const first = keyFor(a.projectId);
      await ports().apiKeys.create(second);
      await ports().apiKeys.create(first);
      await ports().apiKeys.create(keyFor(b.projectId));
      expect(await ports().apiKeys.listForProject(a.projectId)).toEqual([first, second]);
    });

    it('revokes once, only within the owning project', async () => {
      const a = await seedScope(ports());
      const b = await seedScope(ports());
      const key = keyFor(a.projectId);
      await ports().apiKeys.create(key);
      const when = at('2026-03-01T00:00:00.000Z');
      expect(await ports().apiKeys.revoke(b.projectId, key.id, when)).toBe(false);
      expect(await ports().apiKeys.revoke(a.projectId, key.id, when)).toBe(true);
      expect(await ports().apiKeys.revoke(a.projectId, key.id, when)).toBe(false);
      expect((await ports().apiKeys.findByHash(key.keyHash))?.revokedAt).toEqual(when);
    });

    it('refuses two keys with one hash', async () => {
      const { projectId } = await seedScope(ports());
      const key = keyFor(projectId);
      await ports().apiKeys.create(key);
      await expect(ports().apiKeys.create({ ...key, id: newId() })).rejects.toThrow();
    });
  });
}
