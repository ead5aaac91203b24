import type { MigrationInterface, QueryRunner } from 'typeorm';

// E-mail verification of password sign-ups, per project: `off` (what every existing project
// keeps: no mail, no change at sign-in), `optional` or `required`, and the page of the app its
// links open. The tokens and mails go into the existing one_time_tokens and mail_outbox tables.

/** Adds the projects' e-mail verification mode and link page. Never edit once shipped. */
export class EmailVerification1768521700000 implements MigrationInterface {
  readonly name = 'EmailVerification1768521700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query("ALTER TABLE projects ADD COLUMN email_verification text NOT NULL DEFAULT 'off' CHECK (email_verification IN ('off', 'optional', 'required'))");
    await queryRunner.query('ALTER TABLE projects ADD COLUMN email_verification_url text NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE projects DROP COLUMN email_verification_url');
    await queryRunner.query('ALTER TABLE projects DROP COLUMN email_verification');
  }
}
