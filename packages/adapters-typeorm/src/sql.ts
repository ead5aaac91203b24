/** A raw result row, keyed by column name. */
export type Row = Record<string, unknown>;

/**
 * PostgreSQL: the transaction-scoped advisory lock of a critical section named by the text
 * parameter `param` (`$1`), held until the transaction ends; what `Database.transaction`'s `lock`
 * takes, and what a statement that takes the same lock itself must write. hashtextextended turns
 * the name into the 64-bit key the lock function wants; a rare hash collision only makes two
 * unrelated sections wait for each other, never breaks them. The wait counts against lock_timeout
 * like any other lock.
 */
export function sectionLock(param: string): string {
  return `pg_advisory_xact_lock(hashtextextended(${param}, 0))`;
}

/** The statement that takes `sectionLock` of its one parameter. */
export const LOCK_SECTION = `SELECT ${sectionLock('$1')}`;

/** Runs one parameterised statement and returns its rows (SELECT or `... RETURNING`). */
export interface Sql {
  /** Placeholders are PostgreSQL style (`$1`, `$2`, a number may repeat) on both databases. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}
