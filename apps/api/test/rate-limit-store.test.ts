import { Writable } from 'node:stream';
import { FixedClock } from '@svc/core/testing';
import { createLogger } from '../src/composition/logger';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { buildRateLimitStore } from '../src/composition/rate-limit-store';

// The container's limiter with a Redis that is not there (port 1 refuses at once): never throws,
// guessing limits count locally at half, refresh goes on, one log line for the whole outage.

describe('buildRateLimitStore with Redis unreachable', () => {
  it('degrades per rule, logs the outage once and reports every failure', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (c, _e, done) => void (lines.push(String(c)), done()) }) });
    const clock = new FixedClock();
    const failures: unknown[] = [];
    const store = await buildRateLimitStore({ redisUrl: 'redis://127.0.0.1:1', redisPrefix: 'svc:test:', logger, clock, redisTimeoutMs: 200, onStoreFailure: (e) => failures.push(e) });
    try {
      const login = { ...DEFAULT_RATE_LIMITS.login, limit: 4 };
      const decisions = [];
      for (let i = 0; i < 3; i += 1) {
        decisions.push(await store.limiter.hit('login-key', login));
        clock.advance(2); // past the failover's rest, so every hit tries Redis again
      }
      expect(decisions.map((d) => [d.allowed, d.limit])).toEqual([
        [true, 2],
        [true, 2],
        [false, 2],
      ]);
      for (let i = 0; i < 40; i += 1) expect((await store.limiter.hit('refresh-key', { ...DEFAULT_RATE_LIMITS.refresh })).allowed).toBe(true);
      expect(failures.length).toBeGreaterThanOrEqual(3);
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => String(l.msg).startsWith('rate-limit store failing'));
      expect(warnings).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('without REDIS_URL counts in process memory', async () => {
    const logger = createLogger({ level: 'silent' });
    const store = await buildRateLimitStore({ redisUrl: null, redisPrefix: 'svc:', logger, clock: new FixedClock() });
    const rule = { limit: 2, windowSeconds: 60 };
    const allowed = [await store.limiter.hit('k', rule), await store.limiter.hit('k', rule), await store.limiter.hit('k', rule)].map((d) => d.allowed);
    expect(allowed).toEqual([true, true, false]);
    await store.close();
  });
});
