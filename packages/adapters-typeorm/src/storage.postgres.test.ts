import {
  apiKeyRepositoryContract,
  knownDeviceStoreContract,
  projectRepositoryContract,
  sessionStoreContract,
  signingKeyStoreContract,
  userRepositoryContract,
  type StorageFactory,
} from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

describeWithPostgres('TypeORM storage on PostgreSQL', (url) => {
  // Each suite opens its own freshly created schema and drops it (CASCADE) when it closes, so
  // nothing depends on what an earlier run left behind.
  const postgres: StorageFactory = async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 20 });
    return {
      ports: storage,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  };

  projectRepositoryContract('postgres', postgres);
  apiKeyRepositoryContract('postgres', postgres);
  userRepositoryContract('postgres', postgres);
  sessionStoreContract('postgres', postgres);
  signingKeyStoreContract('postgres', postgres);
  knownDeviceStoreContract('postgres', async () => {
    const opened = await postgres();
    return { ...opened, knownDevices: (opened.ports as TypeormStorage).knownDevices };
  });
});
