// Conversions between domain values and what the drivers hand back. Both databases receive dates as
// ISO-8601 strings with milliseconds: PostgreSQL casts them to timestamptz, SQLite stores the text
// itself, whose fixed format makes string order equal time order (so `expires_at > $now` works).

/** A Date as stored: ISO-8601 UTC with milliseconds, exact to the millisecond. */
export function dateParam(value: Date): string {
  return value.toISOString();
}

export function nullableDateParam(value: Date | null): string | null {
  return value === null ? null : dateParam(value);
}

/** pg returns timestamptz as Date; better-sqlite3 returns the stored ISO text. */
export function readDate(value: unknown): Date {
  return value instanceof Date ? new Date(value.getTime()) : new Date(String(value));
}

export function readNullableDate(value: unknown): Date | null {
  return value === null || value === undefined ? null : readDate(value);
}

/** Arrays and objects are stored as JSON text (SQLite) or jsonb (PostgreSQL). */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value);
}

/**
 * pg parses jsonb itself; SQLite returns the text. Our JSON columns only ever hold objects and
 * arrays, so a string can only be SQLite's unparsed text.
 */
export function readJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** PostgreSQL returns booleans, SQLite 0/1. */
export function readBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** count(*) is bigint on PostgreSQL, which pg returns as a string. */
export function readCount(value: unknown): number {
  return Number(value);
}
