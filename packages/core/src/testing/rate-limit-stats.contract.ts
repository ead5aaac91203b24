import type { TenantScope } from '../domain/environment';
import type { RateLimitStats } from '../ports/rate-limit-stats';
import { at, seedScope, type StoragePorts } from './storage-fixture';

export type RateLimitStatsFactory = () => Promise<{ ports: StoragePorts; rateLimitStats: RateLimitStats; close(): Promise<void> }>;

const H0 = at('2026-01-01T10:00:00.000Z');
const hours = (n: number) => new Date(H0.getTime() + n * 3_600_000);

/** Contract every RateLimitStats passes: increments that sum (concurrent ones too), per tenant, by range. */
export function rateLimitStatsContract(label: string, factory: RateLimitStatsFactory): void {
  describe(`RateLimitStats contract: ${label}`, () => {
    let subject: Awaited<ReturnType<RateLimitStatsFactory>>;
    beforeAll(async () => {
      subject = await factory();
    });
    afterAll(async () => {
      await subject?.close();
    });
    const stats = () => subject.rateLimitStats;

    it('adds increments of one hour together, oldest hour first', async () => {
      const scope = await seedScope(subject.ports);
      await stats().add(scope, hours(1), 3);
      await stats().add(scope, hours(0), 2);
      await stats().add(scope, hours(1), 4);
      expect(await stats().listHours(scope, { from: hours(0), to: hours(2) })).toEqual([
        { hour: hours(0), count: 2 },
        { hour: hours(1), count: 7 },
      ]);
    });

    it('loses no concurrent increment (several instances flushing at once)', async () => {
      const scope = await seedScope(subject.ports);
      await Promise.all(Array.from({ length: 12 }, (_, i) => stats().add(scope, hours(0), i + 1)));
      expect(await stats().listHours(scope, { from: hours(0), to: hours(1) })).toEqual([{ hour: hours(0), count: 78 }]);
    });

    it('answers only its own tenant, environment included, and hours in [from, to)', async () => {
      const scope = await seedScope(subject.ports);
      const sandbox: TenantScope = { ...scope, environment: 'sandbox' };
      await stats().add(scope, hours(-1), 1);
      await stats().add(scope, hours(0), 1);
      await stats().add(scope, hours(5), 1);
      await stats().add(sandbox, hours(0), 9);
      expect(await stats().listHours(scope, { from: hours(0), to: hours(5) })).toEqual([{ hour: hours(0), count: 1 }]);
      expect(await stats().listHours(sandbox, { from: hours(-5), to: hours(5) })).toEqual([{ hour: hours(0), count: 9 }]);
      expect(await stats().listHours(await seedScope(subject.ports), { from: hours(-5), to: hours(5) })).toEqual([]);
      expect(await stats().listHours({ ...scope, projectId: 'not-a-uuid' }, { from: hours(-5), to: hours(5) })).toEqual([]);
    });

    it('purges hours before a cutoff across tenants, in bounded batches', async () => {
      const [a, b] = [await seedScope(subject.ports), await seedScope(subject.ports)];
      for (const scope of [a, b]) for (const n of [-3, -2, 0]) await stats().add(scope, hours(n), 1);
      let deleted = 0;
      for (let n = await stats().deleteBefore(hours(-1), 3); n > 0; n = await stats().deleteBefore(hours(-1), 3)) deleted += n;
      expect(deleted).toBeGreaterThanOrEqual(4);
      for (const scope of [a, b]) expect(await stats().listHours(scope, { from: hours(-5), to: hours(5) })).toEqual([{ hour: hours(0), count: 1 }]);
    });

    it('refuses a count that is not a positive integer', async () => {
      const scope = await seedScope(subject.ports);
      for (const count of [0, -1, 1.5]) await expect(stats().add(scope, hours(0), count)).rejects.toThrow();
      expect(await stats().listHours(scope, { from: hours(0), to: hours(1) })).toEqual([]);
    });
  });
}
