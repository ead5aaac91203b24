import type { MigrationInterface, QueryRunner } from 'typeorm';
import { DOWN, POSTGRES_UP, SQLITE_UP } from './initial-schema';

/**
 * Creates every table of the adapter. Hand-written (never generated, never `synchronize`) so the
 * constraints the concurrency rules lean on — unique e-mail per scope, unique key hash, composite
 * foreign keys, one current signing key per scope — are explicit and reviewed.
 */
export class InitialSchema1767225600000 implements MigrationInterface {
  readonly name = 'InitialSchema1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const statements = isPostgres(queryRunner) ? POSTGRES_UP : SQLITE_UP;
    for (const sql of statements) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of DOWN) await queryRunner.query(sql);
  }
}

function isPostgres(queryRunner: QueryRunner): boolean {
  const type = queryRunner.dataSource.options.type;
  if (type === 'postgres') return true;
  if (type === 'better-sqlite3') return false;
  throw new Error(`InitialSchema: unsupported database type ${type}`);
}
