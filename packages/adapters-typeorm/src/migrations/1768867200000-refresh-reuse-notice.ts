import type { MigrationInterface, QueryRunner } from 'typeorm';

// Whether a replayed refresh token also mails the user (the `refresh_token_reused` notice).
// Existing projects keep today's behaviour: no mail.

/** Adds projects.refresh_reuse_notice. Never edit once shipped. */
export class RefreshReuseNotice1768867200000 implements MigrationInterface {
  readonly name = 'RefreshReuseNotice1768867200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    await queryRunner.query(`ALTER TABLE projects ADD COLUMN refresh_reuse_notice ${postgres ? 'boolean NOT NULL DEFAULT false' : 'integer NOT NULL DEFAULT 0'}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE projects DROP COLUMN refresh_reuse_notice');
  }
}
