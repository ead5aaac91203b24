import { RedisChangeFeed } from '@svc/adapters-redis';
import { PostgresChangeFeed, type PoolSettings, type TypeormStorage } from '@svc/adapters-typeorm';
import { LocalChangeFeed, type ChangeFeed } from '@svc/core';
import type { Logger } from 'pino';
import type { RuntimeConfig } from './dev-secrets';

/** Which feed carries change notices between instances (docs/operating.md, "Scaling out"). */
export type ChangeFeedKind = 'redis' | 'postgres' | 'local';

/**
 * The change feed of this instance: Redis pub/sub when REDIS_URL is set, else PostgreSQL
 * LISTEN/NOTIFY on PostgreSQL, else in-process only (SQLite, one instance: the embedded default).
 * Failures to send or to listen are logged once per outage; the caches' TTLs cover the gap.
 */
export async function buildChangeFeed(
  config: Pick<RuntimeConfig, 'redisUrl' | 'redisPrefix' | 'database'>,
  storage: Pick<TypeormStorage, 'database'>,
  /** The storage's connection settings (the listener connects as the pool does). */
  connection: PoolSettings,
  logger: Logger,
): Promise<{ feed: ChangeFeed; kind: ChangeFeedKind }> {
  const onListenerError = (error: unknown) => logger.error({ err: error }, 'a cache failed to take a change notice');
  const failing = failureLog(logger);
  if (config.redisUrl) {
    const feed = await RedisChangeFeed.open({ url: config.redisUrl, prefix: config.redisPrefix, onError: failing });
    return { feed, kind: 'redis' };
  }
  if (config.database.kind === 'postgres') {
    const feed = await PostgresChangeFeed.open({
      database: storage.database,
      connection,
      onError: failing,
      onReconnect: () => logger.info('change notices: listening again; every cache started over'),
    });
    return { feed, kind: 'postgres' };
  }
  return { feed: new LocalChangeFeed(onListenerError), kind: 'local' };
}

/** One warning per burst of failures (a database outage would otherwise log every retry). */
function failureLog(logger: Logger) {
  let last = 0;
  return (error: unknown) => {
    const now = Date.now();
    if (now - last < 60_000) return;
    last = now;
    logger.warn({ err: error }, 'change notices failing; until they are back, other instances see admin changes within the 10 s cache bound');
  };
}
