import type { MigrationInterface, QueryRunner } from 'typeorm';

// Two project settings. Existing projects get the defaults: an absolute session lifetime of 90
// days (sessions older than that end at their next refresh; docs/security.md says why) and the
// common-password check off, as the contract's rule is only a minimum length.
const NINETY_DAYS = 90 * 24 * 60 * 60;

/** Adds the absolute session lifetime and the common-password switch to projects. Never edit once shipped. */
export class SessionLifetimeAndPasswordList1768262400000 implements MigrationInterface {
  readonly name = 'SessionLifetimeAndPasswordList1768262400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    await queryRunner.query(`ALTER TABLE projects ADD COLUMN absolute_session_lifetime_seconds integer NOT NULL DEFAULT ${NINETY_DAYS}`);
    // Booleans as in the earlier migrations: native on PostgreSQL, 0/1 integers on SQLite.
    await queryRunner.query(`ALTER TABLE projects ADD COLUMN reject_common_passwords ${postgres ? 'boolean NOT NULL DEFAULT false' : 'integer NOT NULL DEFAULT 0'}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE projects DROP COLUMN reject_common_passwords');
    await queryRunner.query('ALTER TABLE projects DROP COLUMN absolute_session_lifetime_seconds');
  }
}
