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
import type { StoragePorts } from './storage-fixture';

export const TEST_ISSUER = 'http://svc.test';

/** Every storage port in process memory. */
export function createInMemoryStorage(): StoragePorts {
  return {
    projects: new InMemoryProjectRepository(),
    apiKeys: new InMemoryApiKeyRepository(),
    users: new InMemoryUserRepository(),
    sessions: new InMemorySessionStore(),
    signingKeys: new InMemorySigningKeyStore(),
  };
}

/** A complete AuthDeps on in-memory fakes with a FixedClock; override any member. */
export function createInMemoryDeps(overrides: Partial<AuthDeps> = {}): AuthDeps & { clock: FixedClock } {
  const storage = createInMemoryStorage();
  const signingKeys = overrides.signingKeys ?? storage.signingKeys;
  const clock = (overrides.clock as FixedClock | undefined) ?? new FixedClock();
  return {
    settings: { issuer: TEST_ISSUER, planUserLimits: DEFAULT_PLAN_USER_LIMITS },
    random: cryptoRandom,
    ...storage,
    signingKeys,
    keyFactory: new FakeSigningKeyFactory(),
    tokens: new FakeAccessTokenCodec(signingKeys),
    passwords: new FakePasswordHasher(),
    ...overrides,
    clock,
  };
}
