import type { Row, Sql } from './database';

/** A housekeeping batch size: a positive integer. */
export function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
}

/** Which rows a bounded delete removes: `where` uses `$1`..`$n` of its params; all names are constants. */
export interface BoundedDelete {
  table: string;
  /** The primary-key column the sub-select picks. */
  key: string;
  where: string;
  /** Columns answered for each deleted row. */
  returning: string;
}

/**
 * Deletes at most `limit` rows matching `where`, by primary key from a bounded sub-select
 * (`LIMIT` after the last param), so one housekeeping batch never holds many row locks at once
 * (PostgreSQL) or the write lock for long (SQLite). Answers the deleted rows' `returning` columns.
 */
export async function deleteBounded<T extends Row = Row>(sql: Sql, spec: BoundedDelete, params: readonly unknown[], limit: number): Promise<T[]> {
  assertLimit(limit);
  const { table, key, where, returning } = spec;
  return sql.query<T>(`DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT $${params.length + 1}) RETURNING ${returning}`, [...params, limit]);
}
