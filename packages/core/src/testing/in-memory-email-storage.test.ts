import { createInMemoryStorage } from './in-memory-deps';
import { InMemoryMailOutbox } from './in-memory-mail-outbox';
import { InMemoryOneTimeTokenStore } from './in-memory-one-time-token-store';
import { mailOutboxContract } from './mail-outbox.contract';

mailOutboxContract('memory', async () => {
  const oneTimeTokens = new InMemoryOneTimeTokenStore();
  return { ports: createInMemoryStorage(), oneTimeTokens, outbox: new InMemoryMailOutbox(oneTimeTokens), close: async () => {} };
});
