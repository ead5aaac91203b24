import type { TenantScope } from '../domain/environment';
import type { ApiKeyRepository } from '../ports/api-key-repository';
import type { ChangeFeed, ChangeKind } from '../ports/change-feed';
import type { OAuthProviderStore } from '../ports/oauth-provider-store';
import type { OidcClientStore } from '../ports/oidc-client-store';
import type { ProjectRepository } from '../ports/project-repository';
import type { SigningKeyStore } from '../ports/signing-key-store';
import type { UnitOfWork } from '../ports/unit-of-work';
import type { UserRepository } from '../ports/user-repository';
import { afterCommit } from '../use-cases/atomically';

/** The stores whose writes change what some cache holds. */
export interface ChangeableStores {
  projects?: ProjectRepository;
  apiKeys?: ApiKeyRepository;
  signingKeys?: SigningKeyStore;
  users?: UserRepository;
  oauthProviders?: OAuthProviderStore;
  oidcClients?: OidcClientStore;
}

/** Which project a write touched, from its arguments: the scope's or the first argument. */
const byScope = (args: unknown[]) => (args[0] as TenantScope).projectId;
const byProjectId = (args: unknown[]) => args[0] as string;
/** Writes answering false changed nothing (no such row). */
const changedUnlessFalse = (result: unknown) => result !== false;
/** ProjectRepository.update answers null for no such project. */
const changedUnlessNull = (result: unknown) => result !== null;

interface Write {
  kind: ChangeKind;
  project: (args: unknown[]) => string;
  changed?: (result: unknown) => boolean;
}

/** Every write of an admin-changeable state, by store and method. Reads and hot-path writes are left alone. */
const WRITES: { [S in keyof ChangeableStores]-?: Partial<Record<keyof NonNullable<ChangeableStores[S]>, Write>> } = {
  projects: {
    create: { kind: 'project', project: (args) => (args[0] as { id: string }).id },
    update: { kind: 'project', project: byProjectId, changed: changedUnlessNull },
  },
  apiKeys: {
    create: { kind: 'api-keys', project: (args) => (args[0] as { projectId: string }).projectId },
    revoke: { kind: 'api-keys', project: byProjectId, changed: changedUnlessFalse },
  },
  signingKeys: { rotate: { kind: 'signing-keys', project: byScope } },
  users: {
    setBanned: { kind: 'users', project: byScope, changed: changedUnlessFalse },
    delete: { kind: 'users', project: byScope, changed: changedUnlessFalse },
  },
  oauthProviders: {
    save: { kind: 'oauth-providers', project: byScope },
    remove: { kind: 'oauth-providers', project: byScope, changed: changedUnlessFalse },
  },
  oidcClients: {
    create: { kind: 'oidc-clients', project: byScope },
    remove: { kind: 'oidc-clients', project: byProjectId, changed: changedUnlessFalse },
  },
};

/**
 * `deps` with its admin-changeable stores wrapped: after each successful write of such state the
 * store publishes a notice on `feed` (and waits for its local delivery), so this process's caches
 * have dropped the old state before the write's caller goes on, and other instances' soon after.
 * Wrapping the stores, not the use cases, covers every path that writes: the admin API, the CLI,
 * the janitor. Inside a unit of work of `deps.unitOfWork`, the notice goes after the commit.
 * Everything else in `deps` is passed through as it is.
 */
export function withChangeNotices<D extends ChangeableStores & { unitOfWork?: UnitOfWork }>(deps: D, feed: ChangeFeed): D {
  const wrapped: ChangeableStores = { ...deps };
  for (const name of Object.keys(WRITES) as (keyof ChangeableStores)[]) {
    const store = deps[name];
    if (store) (wrapped as Record<string, unknown>)[name] = publishing(store, WRITES[name] as Record<string, Write>, feed, deps);
  }
  return wrapped as D;
}

function publishing<T extends object>(store: T, writes: Record<string, Write>, feed: ChangeFeed, units: { unitOfWork?: UnitOfWork }): T {
  // Methods are bound once per function (class methods may use private state), not on every
  // access; a method replaced on the store later (a test's spy) is bound anew.
  const bound = new Map<PropertyKey, { original: unknown; method: unknown }>();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      const known = bound.get(property);
      if (known?.original === value) return known.method;
      const call = (value as (...args: unknown[]) => unknown).bind(target);
      const write = typeof property === 'string' ? writes[property] : undefined;
      const method = write
        ? async (...args: unknown[]) => {
            const result = await call(...args);
            // Inside a unit of work the notice waits for the commit: sent before it, another
            // instance (or this one) could read the old state again and keep it.
            if (write.changed?.(result) ?? true) await afterCommit(units, () => feed.publish({ kind: write.kind, projectId: write.project(args) }));
            return result;
          }
        : call;
      bound.set(property, { original: value, method });
      return method;
    },
  });
}
