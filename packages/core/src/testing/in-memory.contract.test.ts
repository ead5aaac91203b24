import { LocalChangeFeed } from '../changes/local-change-feed';
import { changeFeedContract } from './change-feed.contract';
import { accessTokenCodecContract } from './access-token-codec.contract';
import { FakeAccessTokenCodec, FakeSigningKeyFactory } from './fake-access-token-codec';
import { FakePasswordHasher } from './fake-password-hasher';
import { FixedClock } from './fixed-clock';
import { createInMemoryStorage } from './in-memory-deps';
import { InMemoryAuditLog } from './in-memory-audit-log';
import { InMemoryRateLimitStats } from './in-memory-rate-limit-stats';
import { InMemoryWebhookStore } from './in-memory-webhook-store';
import { InMemoryIdentityRepository } from './in-memory-identity-repository';
import { InMemoryKnownDeviceStore } from './in-memory-known-device-store';
import { InMemoryConsoleSignOutStore } from './in-memory-console-sign-out-store';
import { InMemoryMailOutbox } from './in-memory-mail-outbox';
import { InMemoryOAuthProviderStore } from './in-memory-oauth-provider-store';
import { InMemoryOidcArtifactStore } from './in-memory-oidc-artifact-store';
import { InMemoryOidcClientStore } from './in-memory-oidc-client-store';
import { InMemoryOneTimeTokenStore } from './in-memory-one-time-token-store';
import { InMemoryPasskeyStore } from './in-memory-passkey-store';
import { InMemoryRateLimiter } from '../rate-limit/in-memory-rate-limiter';
import type { RateLimiter } from '../ports/rate-limiter';
import { InMemorySigningKeyStore } from './in-memory-signing-key-store';
import { InMemoryTwoFactorStore } from './in-memory-two-factor-store';
import { passwordHasherContract } from './password-hasher.contract';
import { rateLimiterContract } from './rate-limiter.contract';
import { ReferenceTotp } from './reference-totp';
import { storageContracts, type AllStoragePorts } from './storage-contracts';
import { totpAlgorithmContract } from './totp-algorithm.contract';

// The in-memory adapters and fakes of @svc/core/testing, against every contract they implement:
// they must behave as the real adapters do, since most use-case and HTTP tests run on them.

/** Every storage port in process memory, fresh for each suite. */
function memory(): AllStoragePorts {
  const oneTimeTokens = new InMemoryOneTimeTokenStore();
  const webhooks = new InMemoryWebhookStore();
  return {
    ...createInMemoryStorage(),
    oneTimeTokens,
    outbox: new InMemoryMailOutbox(oneTimeTokens),
    twoFactor: new InMemoryTwoFactorStore(),
    passkeys: new InMemoryPasskeyStore(),
    knownDevices: new InMemoryKnownDeviceStore(),
    consoleSignOuts: new InMemoryConsoleSignOutStore(),
    oauthProviders: new InMemoryOAuthProviderStore(),
    identities: new InMemoryIdentityRepository(),
    oidcClients: new InMemoryOidcClientStore(),
    oidcArtifacts: new InMemoryOidcArtifactStore(),
    // Share the webhook store: an entry's deliveries are queued with it.
    auditLog: new InMemoryAuditLog(webhooks),
    rateLimitStats: new InMemoryRateLimitStats(),
    webhooks,
  };
}

storageContracts('memory', async () => ({ ports: memory(), close: async () => {} }));

rateLimiterContract('memory', async () => {
  const clock = new FixedClock();
  return { limiter: new InMemoryRateLimiter(clock), clock };
});

// A store without the optional hitAll (one written before it): hitAllOf calls its hit on each.
rateLimiterContract('a store without hitAll', async () => {
  const clock = new FixedClock();
  const store = new InMemoryRateLimiter(clock);
  const limiter: RateLimiter = { hit: (key, rule) => store.hit(key, rule), refund: (key, rule, window) => store.refund(key, rule, window), reset: (key) => store.reset(key) };
  return { limiter, clock };
});

passwordHasherContract('FakePasswordHasher', async () => new FakePasswordHasher());

accessTokenCodecContract('FakeAccessTokenCodec', async () => {
  const signingKeys = new InMemorySigningKeyStore();
  return { codec: new FakeAccessTokenCodec(signingKeys), factory: new FakeSigningKeyFactory(), signingKeys };
});

// The oathtool cross-check of this reference runs in adapters-mfa (core's tests start no processes).
totpAlgorithmContract('core reference', () => new ReferenceTotp());

changeFeedContract('LocalChangeFeed', { open: async () => new LocalChangeFeed(), shared: false });
