import { createInMemoryStorage } from './in-memory-deps';
import { InMemoryIdentityRepository } from './in-memory-identity-repository';
import { InMemoryOAuthProviderStore } from './in-memory-oauth-provider-store';
import { oauthStorageContract } from './oauth-storage.contract';

oauthStorageContract('memory', async () => ({
  ports: createInMemoryStorage(),
  oauthProviders: new InMemoryOAuthProviderStore(),
  identities: new InMemoryIdentityRepository(),
  close: async () => {},
}));
