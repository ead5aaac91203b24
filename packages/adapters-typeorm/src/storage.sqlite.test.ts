import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  apiKeyRepositoryContract,
  projectRepositoryContract,
  sessionStoreContract,
  signingKeyStoreContract,
  userRepositoryContract,
  type StorageFactory,
} from '@svc/core/testing';
import { openStorage } from './open-storage';

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

// The embedded default may also run purely in memory (tests, demos): same behaviour.
userRepositoryContract('sqlite :memory:', memory);
sessionStoreContract('sqlite :memory:', memory);
