/**
 * Rules of a project environment's activity figures (the console's overview, `GET .../stats`):
 * which audit events count as what, how many days a caller may ask for, and the buckets. Days and
 * hours are UTC, so every instance and every database cuts them at the same instant.
 */

import type { SecurityEventType } from './security-event';

/** Days answered when the caller names none, and the most a caller may ask for. */
export const DEFAULT_STATS_DAYS = 14;
export const MAX_STATS_DAYS = 90;

/** The audit events each figure counts: a completed sign-in, a new account, a refused sign-in. */
export const ACTIVITY_EVENTS = {
  signIns: 'user.signed_in',
  signUps: 'user.created',
  signInFailures: 'user.sign_in_failed',
} as const satisfies Record<string, SecurityEventType>;

/** One UTC day of a project environment's activity. */
export interface ActivityDay {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  signIns: number;
  signUps: number;
  signInFailures: number;
  /** Requests refused with 429 (those that carried the environment's API key). */
  rateLimited: number;
}

/** Why `days` cannot be a stats period (an integer from 1 to {@link MAX_STATS_DAYS}); null when it can. */
export function statsDaysProblem(days: unknown): string | null {
  return Number.isInteger(days) && (days as number) >= 1 && (days as number) <= MAX_STATS_DAYS ? null : `days must be an integer from 1 to ${MAX_STATS_DAYS}.`;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** The UTC day `at` falls in, as `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * The period of `days` UTC days ending with today's (`now`'s day, so far): `[from, to)` with
 * `from` at the first day's midnight and `to` at tomorrow's, and the days in order.
 */
export function statsPeriod(now: Date, days: number): { from: Date; to: Date; days: string[] } {
  const tomorrow = Math.floor(now.getTime() / DAY_MS) * DAY_MS + DAY_MS;
  const from = tomorrow - days * DAY_MS;
  const list: string[] = [];
  for (let t = from; t < tomorrow; t += DAY_MS) list.push(utcDay(new Date(t)));
  return { from: new Date(from), to: new Date(tomorrow), days: list };
}

/**
 * Hours of rate-limited counts older than this are deleted by the janitor: no period a caller may
 * ask for ({@link MAX_STATS_DAYS} days ending today) reaches them.
 */
export function rateLimitedRetentionStart(now: Date): Date {
  return statsPeriod(now, MAX_STATS_DAYS).from;
}

/**
 * The bucket a rate-limited request is counted in: the start of its UTC hour. An hour is fine
 * enough for a chart and coarse enough that a flood of refusals stays a handful of rows.
 */
export function rateLimitedHour(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}
