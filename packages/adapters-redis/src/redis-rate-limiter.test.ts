import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FixedClock, rateLimiterContract } from '@svc/core/testing';
import { connectRedis } from './connect-redis';
import { RedisRateLimiter } from './redis-rate-limiter';
import { describeWithRedis } from './testing/redis-available';
import { waitUntil } from './testing/wait-until';

/** Deletes every key under `prefix` (each test run has its own prefix, so this is all of ours). */
async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

describeWithRedis('RedisRateLimiter', (url) => {
  rateLimiterContract('RedisRateLimiter', async () => {
    const prefix = `svc:test:${randomUUID()}:`;
    const redis = await connectRedis(url, { timeoutMs: 2000 }); // the contract, not the timeout, is under test
    const clock = new FixedClock();
    const limiter = new RedisRateLimiter({ redis, clock, prefix });
    return {
      limiter,
      clock,
      close: async () => {
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  });

  describe('shared by several API instances', () => {
    const prefix = `svc:test:${randomUUID()}:`;
    const clock = new FixedClock('2026-03-01T10:00:00.000Z');
    let connections: Redis[];
    let a: RedisRateLimiter;
    let b: RedisRateLimiter;

    beforeAll(async () => {
      connections = await Promise.all([connectRedis(url, { timeoutMs: 2000 }), connectRedis(url, { timeoutMs: 2000 })]);
      a = new RedisRateLimiter({ redis: connections[0], clock, prefix });
      b = new RedisRateLimiter({ redis: connections[1], clock, prefix });
    });
    afterAll(async () => {
      await deleteKeys(connections[0], prefix);
      await Promise.all(connections.map((redis) => redis.quit()));
    });

    it('agree on one count, whichever instance takes the hit', async () => {
      const rule = { limit: 3, windowSeconds: 60 };
      const decisions = [await a.hit('k1', rule), await b.hit('k1', rule), await a.hit('k1', rule), await b.hit('k1', rule)];
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
    });

    it('allow exactly `limit` hits in total under concurrency on both', async () => {
      const rule = { limit: 7, windowSeconds: 60 };
      const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).hit('k2', rule)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(7);
    });

    it('see a reset made by the other instance', async () => {
      const rule = { limit: 1, windowSeconds: 60 };
      await a.hit('k3', rule);
      expect((await b.hit('k3', rule)).allowed).toBe(false);
      await b.reset('k3');
      expect((await a.hit('k3', rule)).allowed).toBe(true);
    });

    it('keep counting in the newer window when one clock lags at the boundary', async () => {
      const rule = { limit: 2, windowSeconds: 60 };
      const lagging = new RedisRateLimiter({ redis: connections[1], clock: new FixedClock('2026-03-01T10:00:59.500Z'), prefix });
      const ahead = new RedisRateLimiter({ redis: connections[0], clock: new FixedClock('2026-03-01T10:01:00.200Z'), prefix });
      expect((await ahead.hit('k4', rule)).remaining).toBe(1);
      // The lagging instance names the old window; the count must not start over.
      expect((await lagging.hit('k4', rule)).remaining).toBe(0);
      expect((await ahead.hit('k4', rule)).allowed).toBe(false);
    });

    it("count a request's limits in one command", async () => {
      const monitor = await connections[0].monitor();
      const commands: string[][] = [];
      let fenced = false;
      // The script calls on our keys (MONITOR also lists the commands a script runs inside Redis).
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (/^eval/i.test(args[0]) && args.some((arg) => arg.startsWith(prefix))) commands.push(args);
        if (args[0].toLowerCase() === 'echo' && args[1] === `${prefix}fence`) fenced = true;
      });
      try {
        const decisions = await a.hitAll([
          { key: 'k6', rule: { limit: 1, windowSeconds: 60 } },
          { key: 'k7', rule: { limit: 5, windowSeconds: 3600 } },
          { key: 'k6', rule: { limit: 1, windowSeconds: 60 } },
        ]);
        expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
          [true, 0],
          [true, 4],
          [false, 0],
        ]);
        // MONITOR reports on its own connection: a command sent after the hits marks the end of theirs.
        await connections[0].echo(`${prefix}fence`);
        await waitUntil(() => fenced);
        expect(commands).toHaveLength(1);
        expect(commands[0].slice(2, 6)).toEqual(['3', `${prefix}k6`, `${prefix}k7`, `${prefix}k6`]);
        // Each key keeps its own window (an hour's for k7) and expiry.
        expect(await connections[0].pttl(`${prefix}k7`)).toBeGreaterThan(3_600_000);
      } finally {
        monitor.disconnect();
      }
    });

    it('stores one key per limiter key, expiring shortly after its window', async () => {
      await a.hit('k5', { limit: 5, windowSeconds: 60 });
      const ttl = await connections[0].pttl(`${prefix}k5`);
      // The window ends 60 s after 10:00:00 (clock at 10:00:00); the key lives a few seconds longer.
      expect(ttl).toBeGreaterThan(60_000);
      expect(ttl).toBeLessThanOrEqual(70_000);
      expect(await connections[0].hgetall(`${prefix}k5`)).toEqual({ w: String(Date.parse('2026-03-01T10:00:00Z') / 60_000), c: '1' });
    });
  });
});
