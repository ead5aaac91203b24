import type { QueryRunner } from 'typeorm';

// What the hand-written migrations share: the column types of the two dialects (the statements
// are written once, over these) and running a list of statements in order. The SQL each
// migration sends is its own and never changes once shipped.

export interface ColumnTypes {
  id: string;
  time: string;
  json: string;
  bool: string;
  bigint: string;
}

const POSTGRES: ColumnTypes = { id: 'uuid', time: 'timestamptz', json: 'jsonb', bool: 'boolean', bigint: 'bigint' };
const SQLITE: ColumnTypes = { id: 'text', time: 'text', json: 'text', bool: 'integer', bigint: 'integer' };

/** The column types of the database the migration runs on (PostgreSQL, else SQLite). */
export function columnTypes(queryRunner: QueryRunner): ColumnTypes {
  return queryRunner.dataSource.options.type === 'postgres' ? POSTGRES : SQLITE;
}

/** Sends the statements one after the other. */
export async function runStatements(queryRunner: QueryRunner, statements: readonly string[]): Promise<void> {
  for (const sql of statements) await queryRunner.query(sql);
}
