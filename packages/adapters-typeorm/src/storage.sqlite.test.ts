import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiKeyRepositoryContract,
  knownDeviceStoreContract,
  projectRepositoryContract,
  seedScope,
  seedUser,
  sessionStoreContract,
  signingKeyStoreContract,
  userRepositoryContract,
  type StorageFactory,
} from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';

// Every suite gets its own database file in a temp folder that is deleted afterwards.
const file: StorageFactory = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'nested', 'svc.sqlite') });
  return {
    ports: storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

const memory: StorageFactory = async () => {
  const storage = await openStorage({ sqlitePath: ':memory:' });
  return { ports: storage, close: () => storage.close() };
};

projectRepositoryContract('sqlite file', file);
apiKeyRepositoryContract('sqlite file', file);
userRepositoryContract('sqlite file', file);
sessionStoreContract('sqlite file', file);
signingKeyStoreContract('sqlite file', file);
knownDeviceStoreContract('sqlite file', async () => {
  const opened = await file();
  return { ...opened, knownDevices: (opened.ports as TypeormStorage).knownDevices };
});

// The embedded default may also run purely in memory (tests, demos): same behaviour.
userRepositoryContract('sqlite :memory:', memory);
sessionStoreContract('sqlite :memory:', memory);

describe('known devices on SQLite', () => {
  it('die with their user', async () => {
    const { ports, close } = await file();
    const storage = ports as TypeormStorage;
    try {
      const scope = await seedScope(storage);
      const user = await seedUser(storage, scope);
      await storage.knownDevices.remember(scope, user.id, ['a', 'b'], { at: new Date(), keep: 20 });
      await storage.users.delete(scope, user.id);
      const [{ n }] = await storage.database.query<{ n: number }>('SELECT count(*) AS n FROM known_devices');
      expect(Number(n)).toBe(0);
    } finally {
      await close();
    }
  });
});
