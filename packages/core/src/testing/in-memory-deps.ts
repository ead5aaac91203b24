import { DEFAULT_PLAN_USER_LIMITS } from '../domain/project';
import { cryptoRandom } from '../ports/random';
import type { AuthDeps } from '../use-cases/deps';
import { FakeAccessTokenCodec, FakeSigningKeyFactory } from './fake-access-token-codec';
import { FakePasswordHasher } from './fake-password-hasher';
import { FixedClock } from './fixed-clock';
import { InMemoryApiKeyRepository } from './in-memory-api-key-repository';
import { InMemoryProjectRepository } from './in-memory-project-repository';
import { InMemorySessionStore } from './in-memory-session-store';
import { InMemorySigningKeyStore } from './in-memory-signing-key-store';
import { InMemoryUserRepository } from './in-memory-user-repository';
import { FakeSecretBox } from './fake-secret-box';
import { InMemoryMailOutbox } from './in-memory-mail-outbox';
import { InMemoryOneTimeTokenStore } from './in-memory-one-time-token-store';
import { FakeWebAuthnVerifier } from './fake-webauthn';
import { InMemoryPasskeyStore } from './in-memory-passkey-store';
import { InMemoryTwoFactorStore } from './in-memory-two-factor-store';
import { ReferenceTotp } from './reference-totp';
import type { StoragePorts } from './storage-fixture';
import { FakeOAuthProviderClient } from './fake-oauth-provider-client';
import { InMemoryIdentityRepository } from './in-memory-identity-repository';
import { InMemoryOAuthProviderStore } from './in-memory-oauth-provider-store';
import { InMemoryCommonPasswordList } from './in-memory-common-password-list';
import { InMemoryKnownDeviceStore } from './in-memory-known-device-store';
import { InMemoryAuditLog } from './in-memory-audit-log';
import { InMemoryRateLimitStats } from './in-memory-rate-limit-stats';
import { createEventRecorder } from '../use-cases/events/record-event';
import { InMemoryWebhookStore } from './in-memory-webhook-store';
import { RecordingWebhookTransport } from './recording-webhook-transport';

export const TEST_ISSUER = 'http://svc.test';

/** Every storage port in process memory. */
export function createInMemoryStorage(): StoragePorts {
  const users = new InMemoryUserRepository();
  const sessions = new InMemorySessionStore(users);
  const apiKeys = new InMemoryApiKeyRepository();
  const signingKeys = new InMemorySigningKeyStore();
  return { projects: new InMemoryProjectRepository([users, sessions, apiKeys, signingKeys]), apiKeys, users, sessions, signingKeys };
}

/** A complete AuthDeps on in-memory fakes with a FixedClock; override any member. */
export function createInMemoryDeps(overrides: Partial<AuthDeps> = {}): AuthDeps & { clock: FixedClock } {
  const storage = createInMemoryStorage();
  const signingKeys = overrides.signingKeys ?? storage.signingKeys;
  const clock = (overrides.clock as FixedClock | undefined) ?? new FixedClock();
  const oneTimeTokens = overrides.oneTimeTokens ?? new InMemoryOneTimeTokenStore();
  const projects = overrides.projects ?? storage.projects;
  const webhooks = overrides.webhooks ?? new InMemoryWebhookStore();
  // Shares the webhook store: an event's deliveries are queued with its entry.
  const auditLog = overrides.auditLog ?? new InMemoryAuditLog(webhooks);
  const random = overrides.random ?? cryptoRandom;
  return {
    settings: { issuer: TEST_ISSUER, planUserLimits: DEFAULT_PLAN_USER_LIMITS },
    random: cryptoRandom,
    ...storage,
    signingKeys,
    keyFactory: new FakeSigningKeyFactory(),
    tokens: new FakeAccessTokenCodec(signingKeys),
    passwords: new FakePasswordHasher(),
    oneTimeTokens,
    secretBox: new FakeSecretBox(),
    // Shares the token store: a link's token and its mail are stored together (docs/operating.md#the-e-mail-outbox).
    outbox: new InMemoryMailOutbox(oneTimeTokens),
    twoFactor: new InMemoryTwoFactorStore(),
    passkeys: new InMemoryPasskeyStore(),
    totp: new ReferenceTotp(),
    // Swap in the real verifier (adapters-mfa) to run genuine ceremonies.
    webauthn: new FakeWebAuthnVerifier(),
    oauthProviders: new InMemoryOAuthProviderStore(),
    identities: new InMemoryIdentityRepository(),
    // Swap in the real client (adapters-oauth) to talk to identity providers on loopback.
    oauthClient: new FakeOAuthProviderClient(),
    // A few words; the API ships the real list (CommonPasswordFile in adapters-crypto).
    commonPasswords: new InMemoryCommonPasswordList(),
    knownDevices: new InMemoryKnownDeviceStore(),
    auditLog,
    rateLimitStats: new InMemoryRateLimitStats(),
    webhooks,
    webhookTransport: new RecordingWebhookTransport(),
    // Every event into the audit log and to the subscribed webhooks, as the API records them.
    events: createEventRecorder({ clock, random, projects, auditLog, webhooks }),
    ...overrides,
    clock,
  };
}
