import type { MigrationInterface, QueryRunner } from 'typeorm';

// What a user's own account management needs (docs/security.md, "Recent sign-in" and "Devices"):
// each session records when its user last proved a factor and where it was started from, and
// each project how recent that proof must be for a sensitive change. Sessions started before
// this migration have no `authenticated_at`; readers take their sign-in (`created_at`) instead.
const FIVE_MINUTES = 300;

/** Adds the session's reauthentication time and client, and the project's recent sign-in window. Never edit once shipped. */
export class AccountSelfService1768521600000 implements MigrationInterface {
  readonly name = 'AccountSelfService1768521600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    await queryRunner.query(`ALTER TABLE sessions ADD COLUMN authenticated_at ${postgres ? 'timestamptz' : 'text'} NULL`);
    await queryRunner.query('ALTER TABLE sessions ADD COLUMN client_address text NULL');
    await queryRunner.query('ALTER TABLE sessions ADD COLUMN user_agent text NULL');
    await queryRunner.query(`ALTER TABLE projects ADD COLUMN recent_sign_in_seconds integer NOT NULL DEFAULT ${FIVE_MINUTES}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE projects DROP COLUMN recent_sign_in_seconds');
    await queryRunner.query('ALTER TABLE sessions DROP COLUMN user_agent');
    await queryRunner.query('ALTER TABLE sessions DROP COLUMN client_address');
    await queryRunner.query('ALTER TABLE sessions DROP COLUMN authenticated_at');
  }
}
