import { oauthStorageContract } from '@svc/core/testing';
import { openStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

describeWithPostgres('social sign-in storage on PostgreSQL', (url) => {
  oauthStorageContract('postgres', async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 10 });
    return {
      ports: storage,
      oauthProviders: storage.oauthProviders,
      identities: storage.identities,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  });
});
