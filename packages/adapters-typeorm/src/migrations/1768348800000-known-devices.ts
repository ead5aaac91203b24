import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements } from './dialect';

// Known clients of each user (address and device fingerprints of completed sign-ins), so that
// failures from elsewhere do not lock them out (docs/security.md). Conventions as in the initial
// schema: the tenant pair on every row, the user referenced through it, deleted with the user.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string }): string[] {
  return [
    `CREATE TABLE known_devices (
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      user_id ${t.id} NOT NULL,
      fingerprint text NOT NULL,
      first_seen_at ${t.time} NOT NULL,
      last_seen_at ${t.time} NOT NULL,
      PRIMARY KEY (project_id, environment, user_id, fingerprint),
      CONSTRAINT known_devices_user_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES users (project_id, environment, id) ON DELETE CASCADE
    )`,
    // The janitor's batches pick the oldest by last sign-in.
    'CREATE INDEX known_devices_last_seen_idx ON known_devices (last_seen_at)',
  ];
}

/** Adds the known-devices table. Hand-written like the initial schema; never edit once shipped. */
export class KnownDevices1768348800000 implements MigrationInterface {
  readonly name = 'KnownDevices1768348800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE known_devices');
  }
}
