import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements } from './dialect';

// Second factor and passkeys: TOTP enrollments with their recovery codes, WebAuthn
// credentials, and the project's relying-party settings. Conventions as in the initial schema.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string; json: string; bigint: string }): string[] {
  return [
    // One enrollment per user; it dies with the user (composite key: never across tenants).
    `CREATE TABLE totp_enrollments (
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      user_id ${t.id} NOT NULL,
      sealed_secret text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'enabled')),
      last_used_step ${t.bigint} NULL,
      created_at ${t.time} NOT NULL,
      enabled_at ${t.time} NULL,
      PRIMARY KEY (project_id, environment, user_id),
      CONSTRAINT totp_enrollments_user_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES users (project_id, environment, id) ON DELETE CASCADE
    )`,
    // Codes hang off the enrollment: removing TOTP removes them in the same statement.
    `CREATE TABLE totp_recovery_codes (
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      user_id ${t.id} NOT NULL,
      code_hash text NOT NULL,
      used_at ${t.time} NULL,
      PRIMARY KEY (project_id, environment, user_id, code_hash),
      CONSTRAINT totp_recovery_codes_enrollment_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES totp_enrollments (project_id, environment, user_id) ON DELETE CASCADE
    )`,
    // Sign counters are unsigned 32-bit, beyond PostgreSQL's integer: bigint.
    `CREATE TABLE passkeys (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      user_id ${t.id} NOT NULL,
      credential_id text NOT NULL,
      public_key text NOT NULL,
      counter ${t.bigint} NOT NULL CHECK (counter >= 0),
      transports ${t.json} NOT NULL,
      name text NOT NULL,
      created_at ${t.time} NOT NULL,
      last_used_at ${t.time} NULL,
      CONSTRAINT passkeys_scope_credential_key UNIQUE (project_id, environment, credential_id),
      CONSTRAINT passkeys_user_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES users (project_id, environment, id) ON DELETE CASCADE
    )`,
    'CREATE INDEX passkeys_user_idx ON passkeys (project_id, environment, user_id, created_at)',
    `ALTER TABLE projects ADD COLUMN webauthn ${t.json} NULL`,
  ];
}

const DOWN = ['DROP TABLE passkeys', 'DROP TABLE totp_recovery_codes', 'DROP TABLE totp_enrollments', 'ALTER TABLE projects DROP COLUMN webauthn'];

/** Adds the second-factor and passkey tables. Hand-written like the initial schema; never edit once shipped. */
export class SecondFactor1767484800000 implements MigrationInterface {
  readonly name = 'SecondFactor1767484800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, DOWN);
  }
}
