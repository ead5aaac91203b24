import { createInMemoryStorage } from './in-memory-deps';
import { InMemoryOidcArtifactStore } from './in-memory-oidc-artifact-store';
import { InMemoryOidcClientStore } from './in-memory-oidc-client-store';
import { oidcArtifactStoreContract } from './oidc-artifact-store.contract';
import { oidcClientStoreContract, type OidcStorageFactory } from './oidc-client-store.contract';

const memory: OidcStorageFactory = async () => ({
  ports: createInMemoryStorage(),
  oidcClients: new InMemoryOidcClientStore(),
  oidcArtifacts: new InMemoryOidcArtifactStore(),
  close: async () => {},
});

oidcClientStoreContract('memory', memory);
oidcArtifactStoreContract('memory', memory);
