import type { Clock } from '../ports/clock';

/**
 * `lookup` with its answers kept for `ttlSeconds` per key (at most `maxEntries`; the cache starts
 * over when full). A failed lookup is not kept, so the next call tries again. Per process: other
 * replicas see a change within the TTL (docs/decisions.md, "Tenancy and keys").
 */
export function cachedLookup<V>(
  clock: Clock,
  lookup: (key: string) => Promise<V>,
  options: { ttlSeconds: number; maxEntries: number },
): (key: string) => Promise<V> {
  const ttlMs = options.ttlSeconds * 1000;
  const cache = new Map<string, { value: V; until: number }>();
  return async (key) => {
    const now = clock.now().getTime();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await lookup(key);
    if (cache.size >= options.maxEntries) cache.clear();
    cache.set(key, { value, until: now + ttlMs });
    return value;
  };
}
