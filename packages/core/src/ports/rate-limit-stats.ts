import type { TenantScope } from '../domain/environment';

/** Refusals of one hour of a project environment. */
export interface RateLimitedHour {
  /** The start of the UTC hour (`rateLimitedHour`). */
  hour: Date;
  count: number;
}

/**
 * How many requests each project environment had refused with 429, per UTC hour: the durable
 * side of `RateLimitedTally`, which counts in memory and adds here now and then, so a flood of
 * refusals is a few writes and not one per request.
 */
export interface RateLimitStats {
  /**
   * Adds `count` (a positive integer) to the scope's refusals in the hour starting at `hour`. An
   * atomic increment: adds from several instances at once all count, none overwrites another.
   */
  add(scope: TenantScope, hour: Date, count: number): Promise<void>;
  /** The scope's hours with refusals and `from <= hour < to`, oldest first. */
  listHours(scope: TenantScope, range: { from: Date; to: Date }): Promise<RateLimitedHour[]>;
  /** Housekeeping over every tenant: deletes up to `limit` hours that start before `before`; answers how many. */
  deleteBefore(before: Date, limit: number): Promise<number>;
}
