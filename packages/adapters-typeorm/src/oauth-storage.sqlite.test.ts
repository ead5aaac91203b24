import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oauthStorageContract, seedScope, seedUser } from '@svc/core/testing';
import { openStorage } from './open-storage';

oauthStorageContract('sqlite file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-oauth-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
  return {
    ports: storage,
    oauthProviders: storage.oauthProviders,
    identities: storage.identities,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('social sign-in rows on SQLite', () => {
  it('identities die with their user; a link to a user of another scope is refused', async () => {
    const storage = await openStorage({ sqlitePath: ':memory:' });
    try {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      const identity = { provider: 'github' as const, subject: '42', userId: user.id, email: null, createdAt: new Date() };
      await storage.identities.link(scope, identity);
      await expect(storage.identities.link({ ...scope, environment: 'sandbox' }, identity)).rejects.toThrow(/FOREIGN KEY/i);
      await storage.users.delete(scope, user.id);
      expect(await storage.identities.find(scope, 'github', '42')).toBeNull();
    } finally {
      await storage.close();
    }
  });
});
