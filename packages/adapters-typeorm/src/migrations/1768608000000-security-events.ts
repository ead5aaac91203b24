import type { MigrationInterface, QueryRunner } from 'typeorm';

// The audit log (one row per security event, per project environment, append-only) and the
// project settings that go with it: how long entries are kept, and what a replayed refresh token
// ends. Existing projects get the defaults: 90 days, every session of the user (the contract's
// behaviour). Conventions as in the initial schema: the tenant pair on every row.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string; json: string }): string[] {
  return [
    'ALTER TABLE projects ADD COLUMN audit_retention_days integer NOT NULL DEFAULT 90',
    "ALTER TABLE projects ADD COLUMN refresh_reuse_response text NOT NULL DEFAULT 'revoke_all_sessions'",
    `CREATE TABLE audit_log (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      type text NOT NULL,
      at ${t.time} NOT NULL,
      user_id ${t.id},
      actor ${t.json} NOT NULL,
      client_address text,
      user_agent text,
      request_id text,
      data ${t.json} NOT NULL,
      expires_at ${t.time} NOT NULL
    )`,
    // Pages are read newest first per environment; the janitor deletes by expiry.
    'CREATE INDEX audit_log_scope_at_idx ON audit_log (project_id, environment, at DESC, id DESC)',
    'CREATE INDEX audit_log_user_idx ON audit_log (project_id, environment, user_id, at DESC)',
    'CREATE INDEX audit_log_expires_idx ON audit_log (expires_at)',
  ];
}

/** Adds the audit log and the security settings of projects. Never edit once shipped. */
export class SecurityEvents1768608000000 implements MigrationInterface {
  readonly name = 'SecurityEvents1768608000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    const types = postgres ? { id: 'uuid', time: 'timestamptz', json: 'jsonb' } : { id: 'text', time: 'text', json: 'text' };
    for (const sql of statements(types)) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE audit_log');
    await queryRunner.query('ALTER TABLE projects DROP COLUMN refresh_reuse_response');
    await queryRunner.query('ALTER TABLE projects DROP COLUMN audit_retention_days');
  }
}
