import { AuthError } from '../errors';
import { environmentOfApiKey, hashApiKey } from '../domain/api-key';
import type { TenantScope } from '../domain/environment';
import type { Project } from '../domain/project';
import { cachedLookup } from './cached-lookup';
import type { AuthDeps } from './deps';
import type { ChangeFeed } from '../ports/change-feed';

export interface ResolvedApiKey {
  keyId: string;
  scope: TenantScope;
  project: Project;
}

/**
 * Turns an `X-API-Key` value into its tenant. No key -> missing_api_key; a foreign prefix, an
 * unknown or revoked key, or a prefix that disagrees with the stored environment -> invalid_api_key.
 */
export async function resolveApiKey(deps: Pick<AuthDeps, 'apiKeys' | 'projects'>, key: string | undefined): Promise<ResolvedApiKey> {
  if (key === undefined || key === '') throw new AuthError('missing_api_key');
  const environment = environmentOfApiKey(key);
  if (!environment) throw new AuthError('invalid_api_key');
  const record = await deps.apiKeys.findByHash(hashApiKey(key));
  if (!record || record.revokedAt || record.environment !== environment) throw new AuthError('invalid_api_key');
  const project = await deps.projects.findById(record.projectId);
  if (!project) throw new AuthError('invalid_api_key');
  return { keyId: record.id, scope: { projectId: project.id, environment }, project };
}

/**
 * Caches resolutions for `ttlSeconds` (default 10). A notice on `changes` about the project (its
 * settings, plan or keys) drops its resolutions at once; the TTL only bounds a notice that was
 * lost (docs/decisions.md, "Changes reach every instance"). Failures are not cached, so a key
 * created a moment ago works at once.
 */
export function createApiKeyResolver(
  deps: Pick<AuthDeps, 'apiKeys' | 'projects' | 'clock'>,
  options: { ttlSeconds?: number; maxEntries?: number; changes?: ChangeFeed } = {},
): (key: string | undefined) => Promise<ResolvedApiKey> {
  const cached = cachedLookup(deps.clock, (key) => resolveApiKey(deps, key), {
    ttlSeconds: options.ttlSeconds ?? 10,
    maxEntries: options.maxEntries ?? 10_000,
  });
  options.changes?.subscribe((notice) => {
    if (notice.kind === 'everything') cached.forget();
    else if (notice.kind === 'project' || notice.kind === 'api-keys') cached.forget((resolved) => resolved.project.id === notice.projectId);
  });
  // No key at all is refused without touching the cache.
  return (key) => (key ? cached(key) : resolveApiKey(deps, key));
}
