import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FailoverRateLimiter, InMemoryRateLimiter, type FailoverRule } from '@svc/core';
import { FixedClock } from '@svc/core/testing';
import { connectRedis, pingRedis } from './connect-redis';
import { RedisRateLimiter } from './redis-rate-limiter';
import { OutageProxy } from './testing/outage-proxy';
import { describeWithRedis } from './testing/redis-available';
import { waitUntil } from './testing/wait-until';

// docs/security.md#rate-limits: with Redis down the API keeps serving. These tests take a real connection away
// (a refused port, a dropped relay, a frozen relay) and check that hits neither hang nor throw.

const TIMEOUT_MS = 300;
/** Room for the event loop and a loaded CI machine on top of the client's own timeout. */
const SLACK_MS = 700;

function failoverOver(redis: Redis, prefix: string) {
  const clock = new FixedClock();
  const failures: unknown[] = [];
  const limiter = new FailoverRateLimiter({
    primary: new RedisRateLimiter({ redis, clock, prefix }),
    fallback: new InMemoryRateLimiter(clock),
    clock,
    onFailure: (error) => failures.push(error),
  });
  return { clock, failures, limiter };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

describe('FailoverRateLimiter over a Redis that is not there', () => {
  let redis: Redis;
  beforeAll(async () => {
    redis = await connectRedis('redis://127.0.0.1:1', { timeoutMs: TIMEOUT_MS });
  });
  afterAll(() => redis.disconnect());

  it("answers from the local fallback at once, with the rule's policy", async () => {
    const { limiter, failures } = failoverOver(redis, 'svc:test:unused:');
    const strict = await timed(async () => Promise.all([1, 2, 3].map(() => limiter.hit('k', { limit: 4, windowSeconds: 60 }))));
    expect(strict.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(strict.value.filter((d) => d.allowed)).toHaveLength(2);
    const allow = await limiter.hit('k2', { limit: 4, windowSeconds: 60, whenStoreDown: 'allow' });
    expect(allow).toMatchObject({ allowed: true, remaining: 4 });
    expect(failures.length).toBeGreaterThan(0);
  });
});

describeWithRedis('FailoverRateLimiter over Redis through an outage', (url) => {
  const prefix = `svc:test:${randomUUID()}:`;
  let proxy: OutageProxy;
  let redis: Redis;
  let direct: Redis;

  beforeAll(async () => {
    proxy = await OutageProxy.start(url);
    redis = await connectRedis(proxy.url(url), { timeoutMs: TIMEOUT_MS, maxReconnectDelayMs: 50 });
    direct = await connectRedis(url);
  });
  afterAll(async () => {
    const keys = await direct.keys(`${prefix}*`); // a handful of keys under a unique prefix
    if (keys.length) await direct.del(...keys);
    await direct.quit();
    redis.disconnect();
    await proxy.down();
  });

  it('counts in Redis, falls back to strict local counts while it is down, and resumes the Redis count', async () => {
    const { clock, failures, limiter } = failoverOver(redis, prefix);
    const rule: FailoverRule = { limit: 4, windowSeconds: 60 };
    expect((await limiter.hit('k', rule)).remaining).toBe(3);
    expect((await limiter.hit('k', rule)).remaining).toBe(2);

    await proxy.down();
    const during = await timed(async () => [await limiter.hit('k', rule), await limiter.hit('k', rule), await limiter.hit('k', rule)]);
    expect(during.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(during.value.map((d) => [d.allowed, d.limit])).toEqual([
      [true, 2],
      [true, 2],
      [false, 2],
    ]);
    expect(failures).toHaveLength(1); // then the primary rests instead of failing every hit

    await proxy.up();
    await waitUntil(() => pingRedis(redis));
    clock.advance(1); // past the failover's rest after a failure
    const after = [await limiter.hit('k', rule), await limiter.hit('k', rule), await limiter.hit('k', rule)];
    // Hits 3 and 4 of the Redis count (the outage's hits stayed local), then the real limit.
    expect(after.map((d) => [d.allowed, d.remaining, d.limit])).toEqual([
      [true, 1, 4],
      [true, 0, 4],
      [false, 0, 4],
    ]);
    expect(await direct.hget(`${prefix}k`, 'c')).toBe('5');
  });

  it('answers within the command timeout when Redis hangs, and never throws', async () => {
    const { clock, failures, limiter } = failoverOver(redis, prefix);
    const rule: FailoverRule = { limit: 3, windowSeconds: 60 };
    expect((await limiter.hit('hang', rule)).remaining).toBe(2);

    proxy.freeze();
    const frozen = await timed(() => limiter.hit('hang', rule));
    expect(frozen.ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(frozen.ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(frozen.value).toMatchObject({ allowed: true, limit: 1 }); // local, strict
    expect(String(failures[0])).toMatch(/timed out/i);

    await proxy.up(); // the frozen bytes now arrive: Redis runs the hit that timed out
    await waitUntil(() => pingRedis(redis));
    clock.advance(1);
    // So the next Redis hit is the third: a timed-out hit may still have counted (fail closed).
    expect(await limiter.hit('hang', rule)).toMatchObject({ allowed: true, remaining: 0, limit: 3 });
  });
});
