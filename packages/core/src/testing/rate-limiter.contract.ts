import { hitAllOf, type RateLimiter } from '../ports/rate-limiter';
import type { FixedClock } from './fixed-clock';

/**
 * Contract every RateLimiter passes. Stores take time from the injected clock (a fixed window is
 * named by floor(now / window)), so the suite moves the clock instead of sleeping.
 */
export function rateLimiterContract(label: string, make: () => Promise<{ limiter: RateLimiter; clock: FixedClock; close?: () => Promise<void> }>): void {
  describe(`RateLimiter contract: ${label}`, () => {
    let subject: Awaited<ReturnType<typeof make>>;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject.close?.();
    });
    const key = () => `contract:${globalThis.crypto.randomUUID()}`;

    it('allows `limit` hits per window, then refuses with a reset time', async () => {
      const k = key();
      const rule = { limit: 3, windowSeconds: 60 };
      const decisions = [];
      for (let i = 0; i < 5; i += 1) decisions.push(await subject.limiter.hit(k, rule));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0, 0]);
      expect(decisions[3].limit).toBe(3);
      expect(decisions[3].resetSeconds).toBeGreaterThanOrEqual(1);
      expect(decisions[3].resetSeconds).toBeLessThanOrEqual(60);
    });

    it('counts keys separately', async () => {
      const rule = { limit: 1, windowSeconds: 60 };
      const a = key();
      expect((await subject.limiter.hit(a, rule)).allowed).toBe(true);
      expect((await subject.limiter.hit(a, rule)).allowed).toBe(false);
      expect((await subject.limiter.hit(key(), rule)).allowed).toBe(true);
    });

    it('is atomic under concurrency', async () => {
      const k = key();
      const rule = { limit: 5, windowSeconds: 60 };
      const decisions = await Promise.all(Array.from({ length: 20 }, () => subject.limiter.hit(k, rule)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    });

    it('reset forgets the count', async () => {
      const k = key();
      const rule = { limit: 1, windowSeconds: 60 };
      await subject.limiter.hit(k, rule);
      await subject.limiter.reset(k);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(true);
    });

    it('refund takes back one hit, so a failed request costs nothing', async () => {
      const k = key();
      const rule = { limit: 2, windowSeconds: 60 };
      await subject.limiter.hit(k, rule);
      const second = await subject.limiter.hit(k, rule);
      await subject.limiter.refund(k, rule, second.window);
      const third = await subject.limiter.hit(k, rule);
      expect([third.allowed, third.remaining]).toEqual([true, 0]);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(false);
    });

    it('refund never takes a count below zero, and ignores a key it does not know', async () => {
      const k = key();
      const rule = { limit: 2, windowSeconds: 60 };
      const first = await subject.limiter.hit(k, rule);
      await subject.limiter.refund(k, rule, first.window);
      await subject.limiter.refund(k, rule, first.window);
      await subject.limiter.refund(key(), rule, first.window);
      const decisions = [];
      for (let i = 0; i < 3; i += 1) decisions.push(await subject.limiter.hit(k, rule));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false]);
    });

    it('a refund of a hit from a window that has ended leaves the new window alone', async () => {
      const k = key();
      const rule = { limit: 1, windowSeconds: 60 };
      const old = await subject.limiter.hit(k, rule);
      subject.clock.advance(61);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(true);
      await subject.limiter.refund(k, rule, old.window);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(false);
    });

    it('refunds are atomic under concurrency', async () => {
      const k = key();
      const rule = { limit: 5, windowSeconds: 60 };
      const counted = await Promise.all(Array.from({ length: 5 }, () => subject.limiter.hit(k, rule)));
      await Promise.all(counted.map((decision) => subject.limiter.refund(k, rule, decision.window)));
      const decisions = await Promise.all(Array.from({ length: 8 }, () => subject.limiter.hit(k, rule)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    });

    it('hitAll (or hit on each, for a store without it) counts and decides each hit on its own, in order, also past a refusal', async () => {
      const [spent, fresh] = [key(), key()];
      const one = { limit: 1, windowSeconds: 60 };
      const two = { limit: 2, windowSeconds: 60 };
      await subject.limiter.hit(spent, one);
      const decisions = await hitAllOf(subject.limiter, [
        { key: spent, rule: one },
        { key: fresh, rule: two },
      ]);
      expect(decisions.map((d) => [d.allowed, d.limit, d.remaining])).toEqual([
        [false, 1, 0],
        [true, 2, 1],
      ]);
      // The refused hit did not keep the other from counting: `fresh` has one hit left, then none.
      expect((await subject.limiter.hit(fresh, two)).remaining).toBe(0);
      expect((await subject.limiter.hit(fresh, two)).allowed).toBe(false);
    });

    it('hitAll counts in the same windows as hit, and its decisions can be refunded', async () => {
      const k = key();
      const rule = { limit: 3, windowSeconds: 60 };
      const decisions = await hitAllOf(subject.limiter, [
        { key: k, rule },
        { key: k, rule },
      ]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1]);
      await subject.limiter.refund(k, rule, decisions[1].window);
      expect((await subject.limiter.hit(k, rule)).remaining).toBe(1);
      expect(await hitAllOf(subject.limiter, [])).toEqual([]);
    });

    it('hitAll is atomic under concurrency, for every key it names', async () => {
      const [a, b] = [key(), key()];
      const rule = { limit: 4, windowSeconds: 60 };
      const calls = await Promise.all(
        Array.from({ length: 12 }, () =>
          hitAllOf(subject.limiter, [
            { key: a, rule },
            { key: b, rule },
          ]),
        ),
      );
      expect(calls.filter(([first]) => first.allowed)).toHaveLength(4);
      expect(calls.filter(([, second]) => second.allowed)).toHaveLength(4);
    });

    it('opens a new window when the old one ends', async () => {
      const k = key();
      const rule = { limit: 1, windowSeconds: 60 };
      await subject.limiter.hit(k, rule);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(false);
      subject.clock.advance(61);
      expect((await subject.limiter.hit(k, rule)).allowed).toBe(true);
    });
  });
}
