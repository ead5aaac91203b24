import { createAuthService } from '../src/create-auth-service';
import { rateLimitedHour, statsDaysProblem, statsPeriod, utcDay } from '../src/domain/activity-stats';
import type { TenantScope } from '../src/domain/environment';
import type { RateLimitStats } from '../src/ports/rate-limit-stats';
import { RateLimitedTally } from '../src/rate-limit/rate-limited-tally';
import { FixedClock } from '../src/testing/fixed-clock';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import { InMemoryRateLimitStats } from '../src/testing/in-memory-rate-limit-stats';
import { PASSWORD } from './helpers';

// The overview's figures: the period and buckets (UTC), the in-memory tally of refusals and its
// flushes, and the use case that puts the audit log's counts and the refusals together.

describe('the period and buckets of the figures', () => {
  it('covers `days` UTC days ending with today, from midnight to tomorrow midnight', () => {
    const period = statsPeriod(new Date('2026-03-10T23:59:59.999Z'), 3);
    expect(period).toEqual({ from: new Date('2026-03-08T00:00:00.000Z'), to: new Date('2026-03-11T00:00:00.000Z'), days: ['2026-03-08', '2026-03-09', '2026-03-10'] });
    expect(statsPeriod(new Date('2026-03-10T00:00:00.000Z'), 1).days).toEqual(['2026-03-10']);
    expect(statsPeriod(new Date('2024-03-01T05:00:00.000Z'), 2).days).toEqual(['2024-02-29', '2024-03-01']);
  });

  it('counts a refusal in the UTC hour it happened in', () => {
    expect(rateLimitedHour(new Date('2026-03-10T13:59:59.999Z'))).toEqual(new Date('2026-03-10T13:00:00.000Z'));
    expect(rateLimitedHour(new Date('2026-03-10T14:00:00.000Z'))).toEqual(new Date('2026-03-10T14:00:00.000Z'));
    expect(utcDay(new Date('2026-03-10T23:30:00.000Z'))).toBe('2026-03-10');
  });

  it('takes 1 to 90 whole days', () => {
    for (const days of [1, 14, 90]) expect(statsDaysProblem(days)).toBeNull();
    for (const days of [0, 91, 1.5, Number.NaN, '7', null]) expect(statsDaysProblem(days)).toBe('days must be an integer from 1 to 90.');
  });
});

describe('RateLimitedTally', () => {
  const scope: TenantScope = { projectId: '00000000-0000-4000-8000-000000000001', environment: 'production' };
  const sandbox: TenantScope = { ...scope, environment: 'sandbox' };

  it('adds one increment per environment and hour per flush, however many refusals', async () => {
    const clock = new FixedClock('2026-03-10T13:59:00.000Z');
    const writes: number[] = [];
    const memory = new InMemoryRateLimitStats();
    const store: Pick<RateLimitStats, 'add' | 'listHours'> = {
      add: async (s, hour, count) => {
        writes.push(count);
        await memory.add(s, hour, count);
      },
      listHours: (s, range) => memory.listHours(s, range),
    };
    const tally = new RateLimitedTally({ store, clock });
    for (let i = 0; i < 1000; i++) tally.note(scope);
    tally.note(sandbox);
    clock.advance(60); // the next hour
    tally.note(scope);
    expect(tally.unflushed).toBe(1002);
    expect(await tally.flush()).toBe(1002);
    expect(writes.sort((a, b) => a - b)).toEqual([1, 1, 1000]);
    const range = { from: new Date('2026-03-10T00:00:00.000Z'), to: new Date('2026-03-11T00:00:00.000Z') };
    expect(await memory.listHours(scope, range)).toEqual([
      { hour: new Date('2026-03-10T13:00:00.000Z'), count: 1000 },
      { hour: new Date('2026-03-10T14:00:00.000Z'), count: 1 },
    ]);
    expect(await tally.flush()).toBe(0);
  });

  it('keeps what the store refused for the next flush', async () => {
    const memory = new InMemoryRateLimitStats();
    let down = true;
    const store: Pick<RateLimitStats, 'add' | 'listHours'> = {
      add: async (s, hour, count) => {
        if (down) throw new Error('database down');
        await memory.add(s, hour, count);
      },
      listHours: (s, range) => memory.listHours(s, range),
    };
    const tally = new RateLimitedTally({ store, clock: new FixedClock('2026-03-10T13:00:00.000Z') });
    tally.note(scope);
    tally.note(scope);
    await expect(tally.flush()).rejects.toThrow('database down');
    tally.note(scope);
    expect(tally.unflushed).toBe(3);
    down = false;
    expect(await tally.flush()).toBe(3);
    expect(await memory.listHours(scope, { from: new Date('2026-03-10T00:00:00.000Z'), to: new Date('2026-03-11T00:00:00.000Z') })).toEqual([{ hour: new Date('2026-03-10T13:00:00.000Z'), count: 3 }]);
  });
});

describe('activityStats', () => {
  it("answers every day of the period with the audit log's sign-ins, sign-ups, failures and the refusals", async () => {
    const deps = createInMemoryDeps();
    deps.clock.set('2026-03-08T10:00:00.000Z');
    const service = createAuthService(deps);
    const { apiKeys } = await service.admin.createProject({ name: 'Figures' });
    const key = await service.resolveApiKey(apiKeys.production);
    await service.signUp(key, { email: 'ada@example.test', password: PASSWORD });
    deps.clock.set('2026-03-10T09:00:00.000Z');
    await service.logIn(key, { email: 'ada@example.test', password: PASSWORD });
    await expect(service.logIn(key, { email: 'ada@example.test', password: 'wrong password here' })).rejects.toMatchObject({ code: 'invalid_credentials' });
    await deps.rateLimitStats.add(key.scope, new Date('2026-03-10T08:00:00.000Z'), 5);
    await deps.rateLimitStats.add(key.scope, new Date('2026-03-07T23:00:00.000Z'), 7); // before the period
    const stats = await service.admin.activityStats(key.scope, { days: 3 });
    expect(stats).toEqual({
      days: [
        { day: '2026-03-08', signIns: 0, signUps: 1, signInFailures: 0, rateLimited: 0 },
        { day: '2026-03-09', signIns: 0, signUps: 0, signInFailures: 0, rateLimited: 0 },
        { day: '2026-03-10', signIns: 1, signUps: 0, signInFailures: 1, rateLimited: 5 },
      ],
      totals: { signIns: 1, signUps: 1, signInFailures: 1, rateLimited: 5 },
    });
    expect((await service.admin.activityStats({ ...key.scope, environment: 'sandbox' }, {})).totals).toEqual({ signIns: 0, signUps: 0, signInFailures: 0, rateLimited: 0 });
    expect((await service.admin.activityStats(key.scope, {})).days).toHaveLength(14);
    await expect(service.admin.activityStats(key.scope, { days: 91 })).rejects.toMatchObject({ code: 'validation_error', message: 'days must be an integer from 1 to 90.' });

    // The janitor deletes the hours no period reaches: older than the 90 days ending today.
    await deps.rateLimitStats.add(key.scope, new Date('2025-12-11T00:00:00.000Z'), 1); // the oldest day of a 90-day period
    await deps.rateLimitStats.add(key.scope, new Date('2025-12-10T23:00:00.000Z'), 1);
    expect((await service.admin.purgeExpired()).rateLimitedHours).toBe(1);
    expect((await service.admin.activityStats(key.scope, { days: 90 })).totals.rateLimited).toBe(5 + 7 + 1);
  });
});
