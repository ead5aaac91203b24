// Run by redis-rate-limiter.test.ts in a fresh process (measureInFreshProcess): prints how many bytes
// a limiter's hit and a plain command leave in the old generation, beside a call that keeps nothing.
import { randomUUID } from 'node:crypto';
import { FixedClock, oldGenerationBytesPerCall } from '@svc/core/testing';
import { connectRedis } from './connect-redis';
import { RedisRateLimiter } from './redis-rate-limiter';

async function main(): Promise<void> {
  const prefix = `svc:test:${randomUUID()}:`;
  const redis = await connectRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { timeoutMs: 2000 });
  const limiter = new RedisRateLimiter({ redis, clock: new FixedClock(), prefix });
  const rule = { limit: 1_000_000, windowSeconds: 60 };
  try {
    const hit = await oldGenerationBytesPerCall(() => limiter.hit('k', rule));
    const get = await oldGenerationBytesPerCall(() => redis.get(`${prefix}absent`));
    const nothing = await oldGenerationBytesPerCall(async () => ({}));
    process.stdout.write(JSON.stringify({ hit, get, nothing }));
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
}

void main();
