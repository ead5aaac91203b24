import { oidcArtifactStoreContract, oidcClientStoreContract, type OidcStorageFactory } from '@svc/core/testing';
import { openStorage } from './open-storage';
import { createTestSchema, describeWithPostgres } from './testing';

describeWithPostgres('TypeORM OIDC provider stores on PostgreSQL', (url) => {
  // A fresh schema per suite, dropped with everything in it when the suite closes.
  const postgres: OidcStorageFactory = async () => {
    const { schema, drop } = await createTestSchema(url);
    const storage = await openStorage({ databaseUrl: url, schema, poolSize: 12 });
    return {
      ports: storage,
      oidcClients: storage.oidcClients,
      oidcArtifacts: storage.oidcArtifacts,
      close: async () => {
        await storage.close();
        await drop();
      },
    };
  };

  oidcClientStoreContract('postgres', postgres);
  oidcArtifactStoreContract('postgres', postgres);
});
