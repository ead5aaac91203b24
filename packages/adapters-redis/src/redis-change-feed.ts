import { randomUUID } from 'node:crypto';
import { LocalChangeFeed, parseChangeNotice, type ChangeFeed, type ChangeListener, type ChangeNotice } from '@svc/core';
import type { Redis } from 'ioredis';
import { connectRedis } from './connect-redis';

export interface RedisChangeFeedOptions {
  url: string;
  /** Prefix of the channel (SVC_REDIS_PREFIX): the channel is `<prefix>changes`. */
  prefix: string;
  /** Bound on sending a notice, in ms. Default 1000. */
  timeoutMs?: number;
  /** Told when a notice cannot be sent (Redis down); the caches' TTLs then bound what it costs. */
  onError?: (error: unknown) => void;
}

/**
 * Change notices through Redis pub/sub (where REDIS_URL is configured): a dedicated subscriber
 * connection per instance and another that publishes. Both reconnect by themselves; as notices
 * sent while the subscriber was away are lost, each reconnect delivers `everything` to this
 * process's listeners, so every cache starts over.
 */
export class RedisChangeFeed implements ChangeFeed {
  private readonly local = new LocalChangeFeed();
  private readonly origin = randomUUID();
  private readonly channel: string;
  private subscribed = false;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisChangeFeedOptions,
  ) {
    this.channel = `${options.prefix}changes`;
  }

  /** Connects both connections; resolves once subscribed or the first attempt failed (it goes on retrying). */
  static async open(options: RedisChangeFeedOptions): Promise<RedisChangeFeed> {
    const timeoutMs = options.timeoutMs ?? 1000;
    // No outage logger of their own: the rate limiter's connection already reports Redis outages,
    // and `onError` reports notices that could not be sent.
    const [publisher, subscriber] = await Promise.all([connectRedis(options.url, { timeoutMs }), connectRedis(options.url, { timeoutMs })]);
    const feed = new RedisChangeFeed(publisher, subscriber, options);
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === feed.channel) feed.receive(message);
    });
    subscriber.on('ready', () => void feed.listen());
    if (subscriber.status === 'ready') await feed.listen();
    return feed;
  }

  async publish(notice: ChangeNotice): Promise<void> {
    this.local.deliver(notice);
    try {
      await this.publisher.publish(this.channel, JSON.stringify({ ...notice, origin: this.origin }));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  subscribe(listener: ChangeListener): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    await Promise.all([this.publisher, this.subscriber].map((redis) => redis.quit().catch(() => redis.disconnect())));
    await this.local.close();
  }

  /** Subscribes (again, after a reconnect: then every cache starts over, having maybe missed notices). */
  private async listen(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
    } catch {
      return; // not connected after all: the next 'ready' tries again
    }
    if (this.subscribed) this.local.deliver({ kind: 'everything' });
    this.subscribed = true;
  }

  private receive(message: string): void {
    let value: { origin?: unknown };
    try {
      value = JSON.parse(message) as typeof value;
    } catch {
      return;
    }
    if (value.origin === this.origin) return;
    const notice = parseChangeNotice(value);
    if (notice) this.local.deliver(notice);
  }
}
