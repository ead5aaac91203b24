import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements, type ColumnTypes } from './dialect';

// The figures of a project environment's overview. Requests refused with 429 are counted per
// UTC hour, one row per environment and hour that had any, added to by every instance's periodic
// flush (docs/decisions.md, "Rate-limited requests per environment"). Sign-ins and sign-ups are
// counted from the audit log by type and time: its index by (scope, at) would read every entry of
// the period; one by (scope, type, at) reads only the counted types' entries (and serves the
// audit log's type filter too).

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: ColumnTypes): string[] {
  return [
    `CREATE TABLE rate_limited_hours (
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      hour ${t.time} NOT NULL,
      refused ${t.bigint} NOT NULL CHECK (refused > 0),
      PRIMARY KEY (project_id, environment, hour)
    )`,
    'CREATE INDEX audit_log_scope_type_at_idx ON audit_log (project_id, environment, type, at)',
  ];
}

/** Adds the hourly rate-limited counts and the audit log's index by type. Never edit once shipped. */
export class ActivityStats1768780800000 implements MigrationInterface {
  readonly name = 'ActivityStats1768780800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX audit_log_scope_type_at_idx');
    await queryRunner.query('DROP TABLE rate_limited_hours');
  }
}
