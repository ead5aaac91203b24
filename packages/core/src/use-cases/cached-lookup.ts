import type { ChangeFeed } from '../ports/change-feed';
import type { Clock } from '../ports/clock';

/** A cached lookup: call it like the lookup; `forget` drops answers that a change made stale. */
interface CachedLookup<V> {
  (key: string): Promise<V>;
  /**
   * Drops the kept answers `stale` picks (every one without it). Lookups in flight when it is
   * called are not kept either: they may have read the state before the change.
   */
  forget(stale?: (value: V, key: string) => boolean): void;
}

/**
 * `lookup` with its answers kept for `ttlSeconds` per key (at most `maxEntries`; the cache starts
 * over when full). A failed lookup is not kept, so the next call tries again. Changes reach it
 * through `forget` (a change feed's notice); the TTL is the safety net for a notice that never
 * came (docs/decisions.md, "Changes reach every instance").
 */
export function cachedLookup<V>(clock: Clock, lookup: (key: string) => Promise<V>, options: { ttlSeconds: number; maxEntries: number }): CachedLookup<V> {
  const ttlMs = options.ttlSeconds * 1000;
  const cache = new Map<string, { value: V; until: number }>();
  // Bumped by every forget: a lookup that started before it does not keep its answer.
  let generation = 0;
  const cached = async (key: string) => {
    const now = clock.now().getTime();
    const hit = cache.get(key);
    if (hit && hit.until > now) return hit.value;
    const started = generation;
    const value = await lookup(key);
    if (started !== generation || ttlMs <= 0) return value;
    if (cache.size >= options.maxEntries) cache.clear();
    cache.set(key, { value, until: now + ttlMs });
    return value;
  };
  cached.forget = (stale?: (value: V, key: string) => boolean) => {
    generation += 1;
    if (!stale) return cache.clear();
    for (const [key, entry] of cache) if (stale(entry.value, key)) cache.delete(key);
  };
  return cached;
}

/**
 * `cachedLookup` keyed by project id, whose answer for a project `changes` drops at a notice about
 * that project (every answer at `everything`): a project's settings as a use case reads them.
 */
export function cachedPerProject<V>(clock: Clock, lookup: (projectId: string) => Promise<V>, options: { ttlSeconds: number; maxEntries: number }, changes?: ChangeFeed): CachedLookup<V> {
  const cached = cachedLookup(clock, lookup, options);
  changes?.subscribe((notice) => {
    if (notice.kind === 'everything') cached.forget();
    else if (notice.kind === 'project') cached.forget((_value, projectId) => projectId === notice.projectId);
  });
  return cached;
}
