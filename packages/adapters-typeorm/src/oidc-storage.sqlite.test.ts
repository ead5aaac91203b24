import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { oidcArtifactStoreContract, oidcClientStoreContract, type OidcStorageFactory } from '@svc/core/testing';
import { openStorage } from './open-storage';

// Each suite gets its own database file in a temp folder that is deleted afterwards.
const sqliteFile: OidcStorageFactory = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-oidc-'));
  const storage = await openStorage({ sqlitePath: join(dir, 'svc.sqlite') });
  return {
    ports: storage,
    oidcClients: storage.oidcClients,
    oidcArtifacts: storage.oidcArtifacts,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

oidcClientStoreContract('sqlite file', sqliteFile);
oidcArtifactStoreContract('sqlite file', sqliteFile);
