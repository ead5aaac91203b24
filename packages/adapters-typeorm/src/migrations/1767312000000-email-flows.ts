import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements } from './dialect';

// E-mail flows: single-use tokens, the mail outbox, per-project mail templates.
// Conventions as in the initial schema: (project_id, environment) on every tenant row, dates as
// timestamptz / ISO text, JSON as jsonb / text.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string; json: string }): string[] {
  return [
    // No foreign key on user_id: a magic link must still be recognised after its user was deleted
    // (the contract answers 404 user_not_found then, not 401). Tokens die with their project.
    `CREATE TABLE one_time_tokens (
      token_hash text PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      purpose text NOT NULL,
      user_id ${t.id} NULL,
      data ${t.json} NOT NULL,
      created_at ${t.time} NOT NULL,
      expires_at ${t.time} NOT NULL,
      consumed_at ${t.time} NULL,
      failed_attempts integer NOT NULL DEFAULT 0
    )`,
    // Supersede and revoke-all look up a user's open tokens of some purposes.
    `CREATE INDEX one_time_tokens_user_idx ON one_time_tokens (project_id, environment, user_id, purpose)
      WHERE consumed_at IS NULL`,
    `CREATE TABLE mail_outbox (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      recipient text NOT NULL,
      template text NOT NULL,
      sealed_payload text NULL,
      status text NOT NULL CHECK (status IN ('pending', 'sending', 'sent', 'dead')),
      attempts integer NOT NULL,
      next_attempt_at ${t.time} NOT NULL,
      lease_until ${t.time} NULL,
      last_error text NULL,
      message_id text NULL,
      created_at ${t.time} NOT NULL,
      expires_at ${t.time} NOT NULL,
      sent_at ${t.time} NULL
    )`,
    // The worker's two ways in: due pending mails, and claims whose lease ran out.
    `CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE status = 'pending'`,
    `CREATE INDEX mail_outbox_lease_idx ON mail_outbox (lease_until) WHERE status = 'sending'`,
    'CREATE INDEX mail_outbox_recipient_idx ON mail_outbox (project_id, environment, recipient, created_at)',
    `CREATE INDEX mail_outbox_dead_idx ON mail_outbox (project_id, created_at) WHERE status = 'dead'`,
    `ALTER TABLE projects ADD COLUMN email_templates ${t.json} NULL`,
  ];
}

const DOWN = ['DROP TABLE mail_outbox', 'DROP TABLE one_time_tokens', 'ALTER TABLE projects DROP COLUMN email_templates'];

/** Adds the tables of the e-mail flows. Hand-written like the initial schema; never edit once shipped. */
export class EmailFlows1767312000000 implements MigrationInterface {
  readonly name = 'EmailFlows1767312000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, DOWN);
  }
}
