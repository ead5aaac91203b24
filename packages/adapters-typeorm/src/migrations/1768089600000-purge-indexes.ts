import type { MigrationInterface, QueryRunner } from 'typeorm';

// The janitor (purge of rows nobody can use any more): each purge picks its batch through one of
// these, so it never scans a whole table. Same statements on both databases. Plain CREATE INDEX,
// run in the migration transaction like every migration so far: on PostgreSQL it blocks writes
// to the table while it builds. IF NOT EXISTS lets an operator of a large database build them
// beforehand with CREATE INDEX CONCURRENTLY under the same names (docs/operating.md).
const UP = [
  // Expired refresh tokens; the sessions they leave are then found through refresh_tokens_session_idx.
  'CREATE INDEX IF NOT EXISTS refresh_tokens_expiry_idx ON refresh_tokens (expires_at)',
  // Revoked sessions (logout, bans, replays, password resets); live sessions stay out of the index.
  'CREATE INDEX IF NOT EXISTS sessions_revoked_idx ON sessions (revoked_at) WHERE revoked_at IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS one_time_tokens_expiry_idx ON one_time_tokens (expires_at)',
  // Finished mails by age; pending and sending ones are never purged, so they stay out.
  "CREATE INDEX IF NOT EXISTS mail_outbox_finished_idx ON mail_outbox (created_at) WHERE status IN ('sent', 'dead')",
];

const DOWN = ['mail_outbox_finished_idx', 'one_time_tokens_expiry_idx', 'sessions_revoked_idx', 'refresh_tokens_expiry_idx'].map((index) => `DROP INDEX ${index}`);

/** Adds the janitor's indexes. Hand-written like the initial schema; never edit once shipped. */
export class PurgeIndexes1768089600000 implements MigrationInterface {
  readonly name = 'PurgeIndexes1768089600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of UP) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of DOWN) await queryRunner.query(sql);
  }
}
