import type { RateLimitDecision, RateLimiter } from '../src/ports/rate-limiter';
import { FailoverRateLimiter, type FailoverHit, type FailoverRule } from '../src/rate-limit/failover-rate-limiter';
import { FixedClock } from '../src/testing/fixed-clock';
import { InMemoryRateLimiter } from '../src/rate-limit/in-memory-rate-limiter';
import { rateLimiterContract } from '../src/testing/rate-limiter.contract';

/** A store that is down: every call rejects, and it records how often it was asked. */
class DownStore implements RateLimiter {
  calls = 0;
  async hit(): Promise<RateLimitDecision> {
    this.calls += 1;
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
  async hitAll(): Promise<RateLimitDecision[]> {
    this.calls += 1;
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
  async refund(): Promise<void> {
    this.calls += 1;
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
  async reset(): Promise<void> {
    this.calls += 1;
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
}

/** The shared store, which the test takes down and brings back. */
class SwitchableStore implements RateLimiter {
  readonly up: InMemoryRateLimiter;
  readonly down = new DownStore();
  working = true;
  constructor(clock: FixedClock) {
    this.up = new InMemoryRateLimiter(clock);
  }
  hit(key: string, rule: FailoverRule): Promise<RateLimitDecision> {
    return (this.working ? this.up : this.down).hit(key, rule);
  }
  hitAll(hits: readonly FailoverHit[]): Promise<RateLimitDecision[]> {
    return (this.working ? this.up : this.down).hitAll(hits);
  }
  refund(key: string, rule: FailoverRule, window: string): Promise<void> {
    return (this.working ? this.up : this.down).refund(key, rule, window);
  }
  reset(key: string): Promise<void> {
    return (this.working ? this.up : this.down).reset(key);
  }
}

function setup(options: { strictFactor?: number; retryAfterMs?: number } = {}) {
  const clock = new FixedClock();
  const primary = new SwitchableStore(clock);
  const fallback = new InMemoryRateLimiter(clock);
  const failures: unknown[] = [];
  const limiter = new FailoverRateLimiter({ primary, fallback, clock, onFailure: (error) => failures.push(error), ...options });
  return { clock, primary, fallback, failures, limiter };
}

async function hits(limiter: RateLimiter, key: string, rule: FailoverRule, count: number): Promise<RateLimitDecision[]> {
  const decisions = [];
  for (let i = 0; i < count; i += 1) decisions.push(await limiter.hit(key, rule));
  return decisions;
}

describe('FailoverRateLimiter', () => {
  it('counts in the primary while it works', async () => {
    const { primary, fallback, limiter, failures } = setup();
    const rule = { limit: 2, windowSeconds: 60 };
    expect((await hits(limiter, 'k', rule, 3)).map((d) => d.allowed)).toEqual([true, true, false]);
    expect((await primary.up.hit('k', rule)).remaining).toBe(0);
    expect((await fallback.hit('k', rule)).remaining).toBe(1); // the fallback never saw a hit
    expect(failures).toEqual([]);
  });

  it("lets every hit through while the store is down when the rule says 'allow'", async () => {
    const { primary, limiter, failures } = setup();
    primary.working = false;
    const decisions = await hits(limiter, 'k', { limit: 3, windowSeconds: 60, whenStoreDown: 'allow' }, 10);
    expect(decisions.every((d) => d.allowed && d.remaining === 3 && d.limit === 3)).toBe(true);
    expect(failures).toHaveLength(1); // later hits rest the primary instead of failing again
    expect((failures[0] as Error).message).toMatch(/ECONNREFUSED/);
  });

  it('counts locally with half the limit by default while the store is down', async () => {
    const { primary, limiter } = setup();
    primary.working = false;
    const decisions = await hits(limiter, 'k', { limit: 10, windowSeconds: 60 }, 7);
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions[0]).toMatchObject({ limit: 5, remaining: 4 });
    expect(decisions[5].resetSeconds).toBeGreaterThanOrEqual(1);
  });

  it('never goes below one hit per window, and honours strictFactor', async () => {
    const { primary, limiter } = setup({ strictFactor: 0.2 });
    primary.working = false;
    expect((await hits(limiter, 'a', { limit: 1, windowSeconds: 60 }, 2)).map((d) => d.allowed)).toEqual([true, false]);
    expect((await hits(limiter, 'b', { limit: 10, windowSeconds: 60, whenStoreDown: 'local-strict' }, 3)).map((d) => d.allowed)).toEqual([true, true, false]);
  });

  it('goes back to the primary by itself once the store recovers', async () => {
    const { clock, primary, limiter } = setup();
    const rule = { limit: 4, windowSeconds: 60 };
    await hits(limiter, 'k', rule, 2); // two hits counted in the shared store before the outage
    primary.working = false;
    await hits(limiter, 'k', rule, 2); // counted locally (strict limit 2)
    primary.working = true;
    expect((await limiter.hit('k', rule)).allowed).toBe(false); // still resting: the local count of 2 is full
    clock.advance(1);
    const back = await limiter.hit('k', rule);
    expect(back).toMatchObject({ allowed: true, limit: 4, remaining: 1 }); // the shared count resumes at 3
  });

  it('rests the primary for retryAfterMs after a failure, or not at all with 0', async () => {
    const resting = setup();
    resting.primary.working = false;
    await hits(resting.limiter, 'k', { limit: 100, windowSeconds: 60 }, 5);
    expect(resting.primary.down.calls).toBe(1);
    resting.clock.advance(1);
    await resting.limiter.hit('k', { limit: 100, windowSeconds: 60 });
    expect(resting.primary.down.calls).toBe(2);

    const eager = setup({ retryAfterMs: 0 });
    eager.primary.working = false;
    await hits(eager.limiter, 'k', { limit: 100, windowSeconds: 60 }, 5);
    expect(eager.primary.down.calls).toBe(5);
    expect(eager.failures).toHaveLength(5);
  });

  it('never throws, even when the fallback and the failure hook fail too', async () => {
    const limiter = new FailoverRateLimiter({
      primary: new DownStore(),
      fallback: new DownStore(),
      onFailure: () => {
        throw new Error('logger broke');
      },
    });
    await expect(limiter.hit('k', { limit: 1, windowSeconds: 60 })).resolves.toMatchObject({ allowed: true });
    await expect(limiter.reset('k')).resolves.toBeUndefined();
  });

  it('reset clears the local count even while the primary is down', async () => {
    const { primary, limiter, failures } = setup();
    primary.working = false;
    const rule = { limit: 2, windowSeconds: 60 };
    await hits(limiter, 'k', rule, 1);
    expect((await limiter.hit('k', rule)).allowed).toBe(false);
    await limiter.reset('k');
    expect((await limiter.hit('k', rule)).allowed).toBe(true);
    expect(failures.length).toBeGreaterThanOrEqual(2); // the failed hit and the failed reset
  });

  it('refunds in the store that counted the hit, and nowhere for a hit let through uncounted', async () => {
    const { clock, primary, fallback, limiter, failures } = setup();
    const rule = { limit: 4, windowSeconds: 60 };
    const shared = await limiter.hit('k', rule);
    primary.working = false;
    const local = await limiter.hit('k', rule); // counted in the fallback, strict limit 2
    const uncounted = await limiter.hit('r', { ...rule, whenStoreDown: 'allow' });
    await limiter.refund('k', rule, local.window);
    await limiter.refund('r', { ...rule, whenStoreDown: 'allow' }, uncounted.window);
    expect((await fallback.hit('k', { limit: 2, windowSeconds: 60 })).remaining).toBe(1); // back to 0, then this hit
    primary.working = true;
    clock.advance(1);
    await limiter.refund('k', rule, shared.window);
    expect((await primary.up.hit('k', rule)).remaining).toBe(3);
    expect(failures).toHaveLength(1); // the outage's first hit only
  });

  it('a refund that fails is reported, never thrown', async () => {
    const { primary, limiter, failures } = setup();
    const decision = await limiter.hit('k', { limit: 2, windowSeconds: 60 });
    primary.working = false;
    await expect(limiter.refund('k', { limit: 2, windowSeconds: 60 }, decision.window)).resolves.toBeUndefined();
    expect(failures).toHaveLength(1);
  });

  it("hitAll applies each hit's own whenStoreDown while the store is down, after one failed call", async () => {
    const { primary, limiter, failures } = setup();
    primary.working = false;
    const calls = [];
    for (let i = 0; i < 3; i += 1) {
      calls.push(
        await limiter.hitAll([
          { key: 'strict', rule: { limit: 4, windowSeconds: 60, whenStoreDown: 'local-strict' } },
          { key: 'open', rule: { limit: 1, windowSeconds: 60, whenStoreDown: 'allow' } },
        ]),
      );
    }
    expect(calls.map(([strict, open]) => [strict.allowed, open.allowed])).toEqual([
      [true, true],
      [true, true],
      [false, true],
    ]);
    expect(calls[0][0]).toMatchObject({ limit: 2, remaining: 1 });
    expect(primary.down.calls).toBe(1);
    expect(failures).toHaveLength(1);
  });

  it('hitAll counts in the primary while it works, and its hits refund there', async () => {
    const { primary, fallback, limiter } = setup();
    const rule = { limit: 2, windowSeconds: 60 };
    const [a, b] = await limiter.hitAll([
      { key: 'a', rule },
      { key: 'b', rule },
    ]);
    expect([a.remaining, b.remaining]).toEqual([1, 1]);
    await limiter.refund('a', rule, a.window);
    expect((await primary.up.hit('a', rule)).remaining).toBe(1);
    expect((await primary.up.hit('b', rule)).remaining).toBe(0);
    expect((await fallback.hit('a', rule)).remaining).toBe(1); // the fallback never saw a hit
  });

  it('refuses a strictFactor outside (0, 1]', () => {
    const stores = { primary: new DownStore(), fallback: new DownStore() };
    expect(() => new FailoverRateLimiter({ ...stores, strictFactor: 0 })).toThrow(RangeError);
    expect(() => new FailoverRateLimiter({ ...stores, strictFactor: 1.5 })).toThrow(RangeError);
  });
});

rateLimiterContract('FailoverRateLimiter over a working primary', async () => {
  const clock = new FixedClock();
  const failures: unknown[] = [];
  const limiter = new FailoverRateLimiter({
    primary: new InMemoryRateLimiter(clock),
    fallback: new InMemoryRateLimiter(clock),
    clock,
    onFailure: (error) => failures.push(error),
  });
  // A working primary must never fail over, or the contract would be testing the fallback.
  return { limiter, clock, close: async () => expect(failures).toEqual([]) };
});
