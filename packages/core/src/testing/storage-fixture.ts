import type { Environment, TenantScope } from '../domain/environment';
import { DEFAULT_RECENT_SIGN_IN_SECONDS, DEFAULT_SECURITY_SETTINGS, DEFAULT_TOKEN_LIFETIMES, type Project } from '../domain/project';
import type { User } from '../domain/user';
import type { StoragePorts } from '../ports/storage-ports';

// Contract suites get the storage ports together because rows reference each other.
export type { StoragePorts };

/**
 * Opens a storage adapter for one contract suite. Suites isolate their cases by fresh project ids,
 * so one database (or schema) can serve a whole suite; `close` drops what `open` created.
 */
export type StorageFactory = () => Promise<{ ports: StoragePorts; close(): Promise<void> }>;

export const newId = (): string => globalThis.crypto.randomUUID();

/** Millisecond-precision dates only: every adapter must round-trip them exactly. */
export const at = (iso: string): Date => new Date(iso);

export function projectFixture(overrides: Partial<Project> = {}): Project {
  const now = at('2026-01-01T00:00:00.000Z');
  return {
    id: newId(),
    name: 'Contract project',
    plan: 'FREE',
    allowedOrigins: [],
    defaultMeta: {},
    redirectUrls: [],
    magicLinkUrl: null,
    passwordResetUrl: null,
    oidcLoginUrl: null,
    userLimit: null,
    webauthn: null,
    emailTemplates: null,
    rejectCommonPasswords: false,
    rateLimits: null,
    recentSignInSeconds: DEFAULT_RECENT_SIGN_IN_SECONDS,
    emailVerification: 'off',
    emailVerificationUrl: null,
    ...DEFAULT_TOKEN_LIFETIMES,
    ...DEFAULT_SECURITY_SETTINGS,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

export function userFixture(overrides: Partial<User> = {}): User {
  const id = newId();
  return {
    id,
    email: `${id}@example.test`,
    passwordHash: 'hash',
    role: 'user',
    meta: {},
    emailVerified: false,
    bannedAt: null,
    createdAt: at('2026-01-01T00:00:00.000Z'),
    lastLoginAt: null,
    ...overrides,
  };
}

/** Creates a project and returns the scope of one of its environments. */
export async function seedScope(ports: StoragePorts, environment: Environment = 'production'): Promise<TenantScope> {
  const project = projectFixture();
  await ports.projects.create(project);
  return { projectId: project.id, environment };
}

export async function seedUser(ports: StoragePorts, scope: TenantScope, overrides: Partial<User> = {}): Promise<User> {
  const user = userFixture(overrides);
  const result = await ports.users.createWithinLimit(scope, user, { limit: null });
  if (result.status !== 'created') throw new Error(`seedUser: ${result.status}`);
  return user;
}

/** Opens the storage once per describe block and closes it afterwards. */
export function useStorage(factory: StorageFactory): () => StoragePorts {
  let opened: Awaited<ReturnType<StorageFactory>> | undefined;
  beforeAll(async () => {
    opened = await factory();
  });
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (!opened) throw new Error('storage not opened');
    return opened.ports;
  };
}
