import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { passkeyFixture, passkeyStoreContract, seedScope, seedUser, twoFactorStoreContract } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';

// Each suite gets its own database file in a temp folder that is deleted afterwards.
async function sqliteFile(): Promise<{ storage: TypeormStorage; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-2fa-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
  return {
    storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

twoFactorStoreContract('sqlite file', async () => {
  const { storage, close } = await sqliteFile();
  return { ports: storage, twoFactor: storage.twoFactor, close };
});

passkeyStoreContract('sqlite file', async () => {
  const { storage, close } = await sqliteFile();
  return { ports: storage, passkeys: storage.passkeys, close };
});

describe('second-factor rows on SQLite', () => {
  it('die with their user', async () => {
    const { storage, close } = await sqliteFile();
    try {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      await storage.twoFactor.beginTotp(scope, user.id, { sealedSecret: 's', createdAt: new Date() });
      await storage.twoFactor.enableTotp(scope, user.id, { sealedSecret: 's', usedStep: 1, recoveryCodeHashes: ['h'], enabledAt: new Date() });
      const passkey = passkeyFixture(user.id);
      await storage.passkeys.add(scope, passkey);
      await storage.users.delete(scope, user.id);
      expect(await storage.twoFactor.findTotp(scope, user.id)).toBeNull();
      expect(await storage.passkeys.findByCredentialId(scope, passkey.credentialId)).toBeNull();
      const [{ n }] = await storage.database.query<{ n: number }>('SELECT count(*) AS n FROM totp_recovery_codes');
      expect(Number(n)).toBe(0);
    } finally {
      await close();
    }
  });
});
