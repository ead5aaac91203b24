import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailOutboxContract, oneTimeTokenStoreContract } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';

// The e-mail flows' ports (issue 4) on the embedded default: a file and :memory:.
async function sqliteFile(): Promise<{ storage: TypeormStorage; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mail-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
  return {
    storage,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const asFactory = (open: () => Promise<{ storage: TypeormStorage; close(): Promise<void> }>) => async () => {
  const { storage, close } = await open();
  return { ports: storage, oneTimeTokens: storage.oneTimeTokens, outbox: storage.outbox, close };
};

const memory = async () => {
  const storage = await openStorage({ sqlitePath: ':memory:' });
  return { storage, close: () => storage.close() };
};

oneTimeTokenStoreContract('sqlite file', asFactory(sqliteFile));
mailOutboxContract('sqlite file', asFactory(sqliteFile));
oneTimeTokenStoreContract('sqlite :memory:', asFactory(memory));
mailOutboxContract('sqlite :memory:', asFactory(memory));
