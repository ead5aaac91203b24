import { createInMemoryStorage } from './in-memory-deps';
import { FixedClock } from './fixed-clock';
import { InMemoryRateLimiter } from './in-memory-rate-limiter';
import { apiKeyRepositoryContract } from './api-key-repository.contract';
import { projectRepositoryContract } from './project-repository.contract';
import { rateLimiterContract } from './rate-limiter.contract';
import { sessionStoreContract } from './session-store.contract';
import { signingKeyStoreContract } from './signing-key-store.contract';
import { userRepositoryContract } from './user-repository.contract';

const memory = async () => ({ ports: createInMemoryStorage(), close: async () => {} });

projectRepositoryContract('memory', memory);
apiKeyRepositoryContract('memory', memory);
userRepositoryContract('memory', memory);
sessionStoreContract('memory', memory);
signingKeyStoreContract('memory', memory);
rateLimiterContract('memory', async () => {
  const clock = new FixedClock();
  return { limiter: new InMemoryRateLimiter(clock), clock };
});

import { InMemoryOneTimeTokenStore } from './in-memory-one-time-token-store';
import { oneTimeTokenStoreContract } from './one-time-token-store.contract';

oneTimeTokenStoreContract('memory', async () => ({
  ports: createInMemoryStorage(),
  oneTimeTokens: new InMemoryOneTimeTokenStore(),
  close: async () => {},
}));

import { InMemoryKnownDeviceStore } from './in-memory-known-device-store';
import { knownDeviceStoreContract } from './known-device-store.contract';

knownDeviceStoreContract('memory', async () => ({
  ports: createInMemoryStorage(),
  knownDevices: new InMemoryKnownDeviceStore(),
  close: async () => {},
}));
