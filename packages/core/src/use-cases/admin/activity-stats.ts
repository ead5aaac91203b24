import { ACTIVITY_EVENTS, DEFAULT_STATS_DAYS, statsDaysProblem, statsPeriod, utcDay, type ActivityDay } from '../../domain/activity-stats';
import type { TenantScope } from '../../domain/environment';
import { AuthError } from '../../errors';
import type { AuditLog } from '../../ports/audit-log';
import type { Clock } from '../../ports/clock';
import type { RateLimitStats } from '../../ports/rate-limit-stats';

/** What the figures are read from; a host without `rateLimitStats` records no refusals (0 each day). */
export interface ActivityStatsDeps {
  clock: Clock;
  auditLog: Pick<AuditLog, 'countPerDay'>;
  rateLimitStats?: Pick<RateLimitStats, 'listHours'>;
}

export interface ActivityStats {
  /** Every day of the period, oldest first, today (so far) last, zeros included. */
  days: ActivityDay[];
  /** The days' figures added up. */
  totals: Omit<ActivityDay, 'day'>;
}

/**
 * Sign-ins, sign-ups, refused sign-ins (from the audit log) and rate-limited requests of a project
 * environment, per UTC day over the last `days` days (default {@link DEFAULT_STATS_DAYS}).
 */
export async function activityStats(deps: ActivityStatsDeps, scope: TenantScope, query: { days?: number } = {}): Promise<ActivityStats> {
  const count = query.days ?? DEFAULT_STATS_DAYS;
  const problem = statsDaysProblem(count);
  if (problem) throw new AuthError('validation_error', problem);
  const period = statsPeriod(deps.clock.now(), count);
  const byDay = new Map<string, ActivityDay>(period.days.map((day) => [day, { day, signIns: 0, signUps: 0, signInFailures: 0, rateLimited: 0 }]));
  const figureOf = new Map(Object.entries(ACTIVITY_EVENTS).map(([figure, type]) => [type as string, figure as keyof typeof ACTIVITY_EVENTS]));
  const range = { from: period.from, to: period.to };
  const [events, hours] = await Promise.all([deps.auditLog.countPerDay(scope, { types: Object.values(ACTIVITY_EVENTS), ...range }), deps.rateLimitStats?.listHours(scope, range) ?? []]);
  for (const { day, type, count: n } of events) {
    const figure = figureOf.get(type);
    const bucket = byDay.get(day);
    if (figure && bucket) bucket[figure] += n;
  }
  for (const { hour, count: n } of hours) {
    const bucket = byDay.get(utcDay(hour));
    if (bucket) bucket.rateLimited += n;
  }
  const days = [...byDay.values()];
  const totals = { signIns: 0, signUps: 0, signInFailures: 0, rateLimited: 0 };
  for (const day of days) for (const figure of Object.keys(totals) as (keyof typeof totals)[]) totals[figure] += day[figure];
  return { days, totals };
}
