import { passkeyStoreContract, twoFactorStoreContract } from '@svc/core/testing';
import { openStorage, type TypeormStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

describeWithPostgres('TypeORM second-factor stores on PostgreSQL', (url) => {
  // A fresh schema per suite, dropped with everything in it when the suite closes.
  async function postgres(): Promise<{ storage: TypeormStorage; close(): Promise<void> }> {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 20 });
    return {
      storage,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  }

  twoFactorStoreContract('postgres', async () => {
    const { storage, close } = await postgres();
    return { ports: storage, twoFactor: storage.twoFactor, close };
  });

  passkeyStoreContract('postgres', async () => {
    const { storage, close } = await postgres();
    return { ports: storage, passkeys: storage.passkeys, close };
  });
});
