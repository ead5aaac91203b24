import { BcryptPasswordHasher, KeyEncryption, Rs256AccessTokenCodec, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { openStorage, type TypeormStorage } from '@svc/adapters-typeorm';
import { createAuthService, cryptoRandom, systemClock, type AuthDeps, type AuthService, type RateLimiter } from '@svc/core';
// The in-memory limiter is the embedded default (DESIGN §6); the Redis store comes with REDIS_URL in a later issue.
import { InMemoryRateLimiter } from '@svc/core/testing';
import type { RuntimeConfig } from './dev-secrets';

/** The running service's parts, built from configuration. */
export interface Container {
  auth: AuthService;
  rateLimiter: RateLimiter;
  /** Resolves when the database answers (readiness). */
  ready(): Promise<void>;
  /** True when the database holds no project yet (first start of the embedded default). */
  isEmpty(): Promise<boolean>;
  /** Closes the database connection(s). */
  close(): Promise<void>;
}

/**
 * The composition root (STYLE rule 9): the only place that picks and builds adapters.
 * Opening the storage also runs pending migrations.
 */
export async function buildContainer(config: RuntimeConfig): Promise<Container> {
  const storage = await openStorage(
    config.database.kind === 'postgres' ? { databaseUrl: config.database.url } : { sqlitePath: config.database.path },
  );
  const encryption = new KeyEncryption({ masterKey: config.masterKey });
  const deps: AuthDeps = {
    settings: { issuer: config.baseUrl, planUserLimits: config.planUserLimits },
    clock: systemClock,
    random: cryptoRandom,
    projects: storage.projects,
    apiKeys: storage.apiKeys,
    users: storage.users,
    sessions: storage.sessions,
    signingKeys: storage.signingKeys,
    keyFactory: new RsaSigningKeyFactory({ encryption }),
    tokens: new Rs256AccessTokenCodec({ signingKeys: storage.signingKeys, encryption }),
    passwords: new BcryptPasswordHasher({ cost: config.bcryptCost }),
  };
  return {
    auth: createAuthService(deps),
    rateLimiter: new InMemoryRateLimiter(),
    ready: () => storage.ping(),
    isEmpty: () => hasNoProject(storage),
    close: () => storage.close(),
  };
}

// The ProjectRepository port has no "count" or "list" (nothing in the API needs one), so this
// first-start check asks the adapter's SQL helper directly.
async function hasNoProject(storage: TypeormStorage): Promise<boolean> {
  const rows = await storage.database.query('SELECT id FROM projects LIMIT 1');
  return rows.length === 0;
}
