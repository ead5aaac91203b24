import type { MigrationInterface, QueryRunner } from 'typeorm';

// A project's own rate limits per environment (JSON, as webauthn and email_templates). Existing
// projects get none: the service's limits apply, as before.

/** Adds projects.rate_limits. Never edit once shipped. */
export class ProjectRateLimits1768435200000 implements MigrationInterface {
  readonly name = 'ProjectRateLimits1768435200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    await queryRunner.query(`ALTER TABLE projects ADD COLUMN rate_limits ${postgres ? 'jsonb' : 'text'} NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE projects DROP COLUMN rate_limits');
  }
}
