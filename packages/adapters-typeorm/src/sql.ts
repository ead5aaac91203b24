/** A raw result row, keyed by column name. */
export type Row = Record<string, unknown>;

/** Runs one parameterised statement and returns its rows (SELECT or `... RETURNING`). */
export interface Sql {
  /** Placeholders are PostgreSQL style (`$1`, `$2`, a number may repeat) on both databases. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}
