import type { Redis } from 'ioredis';
import { connectRedis, pingRedis, type RedisLogger } from './connect-redis';
import { OutageProxy } from './testing/outage-proxy';
import { describeWithRedis } from './testing/redis-available';
import { waitUntil } from './testing/wait-until';

/** A logger that records, so tests can count log lines. */
class RecordingLogger implements RedisLogger {
  readonly lines: Array<{ level: 'warn' | 'info'; details: object; message?: string }> = [];
  warn(details: object, message?: string): void {
    this.lines.push({ level: 'warn', details, message });
  }
  info(details: object, message?: string): void {
    this.lines.push({ level: 'info', details, message });
  }
}

describe('connectRedis without a server', () => {
  let redis: Redis;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    // Port 1 on loopback: nothing listens, so every attempt is refused.
    redis = await connectRedis('redis://user:s3cret@127.0.0.1:1', { logger, timeoutMs: 300, maxReconnectDelayMs: 20 });
  });
  afterAll(() => redis.disconnect());

  it('resolves instead of rejecting, and commands fail at once instead of queueing', async () => {
    const started = Date.now();
    expect(await pingRedis(redis)).toBe(false);
    await expect(redis.get('anything')).rejects.toThrow(/enableOfflineQueue|writeable|closed/i);
    expect(Date.now() - started).toBeLessThan(300);
  });

  it('logs the outage once, however often it retries, without the password', async () => {
    let attempts = 0;
    redis.on('reconnecting', () => (attempts += 1));
    await waitUntil(() => attempts >= 5);
    expect(logger.lines.map((line) => line.level)).toEqual(['warn']);
    expect(JSON.stringify(logger.lines[0].details)).not.toContain('s3cret');
  });
});

describeWithRedis('connectRedis', (url) => {
  let proxy: OutageProxy;
  let redis: Redis;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    proxy = await OutageProxy.start(url);
    redis = await connectRedis(proxy.url(url), { logger, timeoutMs: 300, maxReconnectDelayMs: 20 });
  });
  afterAll(async () => {
    redis.disconnect();
    await proxy.down();
  });

  it('is ready when it resolves', async () => {
    expect(redis.status).toBe('ready');
    expect(await pingRedis(redis)).toBe(true);
  });

  it('reconnects by itself after an outage, logging its start and end once each', async () => {
    let attempts = 0;
    const count = () => (attempts += 1);
    redis.on('reconnecting', count);
    await proxy.down();
    await waitUntil(() => attempts >= 5);
    expect(await pingRedis(redis)).toBe(false);
    await proxy.up();
    await waitUntil(() => pingRedis(redis));
    redis.off('reconnecting', count);
    expect(logger.lines.map((line) => `${line.level} ${line.message}`)).toEqual(['warn redis unreachable; retrying in the background', 'info redis reachable again']);
  });
});
