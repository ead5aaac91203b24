import type { MigrationInterface, QueryRunner } from 'typeorm';

// Webhook endpoints of each project environment, the queue of their deliveries (the outbox
// pattern, as mail_outbox) and the delivery log. Conventions as in the initial schema: the
// tenant pair on every row; messages and attempts go with their endpoint.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string; json: string; boolean: string }): string[] {
  return [
    `CREATE TABLE webhook_endpoints (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      url text NOT NULL,
      event_types ${t.json} NOT NULL,
      enabled ${t.boolean} NOT NULL,
      disabled_reason text,
      sealed_secret text NOT NULL,
      sealed_previous_secret text,
      previous_secret_expires_at ${t.time},
      created_at ${t.time} NOT NULL,
      updated_at ${t.time} NOT NULL
    )`,
    'CREATE INDEX webhook_endpoints_scope_idx ON webhook_endpoints (project_id, environment, created_at)',
    `CREATE TABLE webhook_messages (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      endpoint_id ${t.id} NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_type text NOT NULL,
      payload text NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'dead')),
      attempts integer NOT NULL,
      next_attempt_at ${t.time} NOT NULL,
      lease_until ${t.time},
      last_status_code integer,
      last_error text,
      created_at ${t.time} NOT NULL,
      delivered_at ${t.time}
    )`,
    // The worker's claim reads due pending and expired sending rows; listings go by endpoint.
    'CREATE INDEX webhook_messages_due_idx ON webhook_messages (status, next_attempt_at)',
    'CREATE INDEX webhook_messages_endpoint_idx ON webhook_messages (endpoint_id, created_at)',
    'CREATE INDEX webhook_messages_created_idx ON webhook_messages (created_at)',
    `CREATE TABLE webhook_attempts (
      message_id ${t.id} NOT NULL REFERENCES webhook_messages (id) ON DELETE CASCADE,
      seq ${t.id} NOT NULL,
      attempt integer NOT NULL,
      at ${t.time} NOT NULL,
      status_code integer,
      error text,
      duration_ms integer NOT NULL,
      PRIMARY KEY (message_id, seq)
    )`,
  ];
}

/** Adds webhook endpoints, their delivery queue and log. Never edit once shipped. */
export class Webhooks1768608100000 implements MigrationInterface {
  readonly name = 'Webhooks1768608100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.dataSource.options.type === 'postgres';
    const types = postgres ? { id: 'uuid', time: 'timestamptz', json: 'jsonb', boolean: 'boolean' } : { id: 'text', time: 'text', json: 'text', boolean: 'integer' };
    for (const sql of statements(types)) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE webhook_attempts');
    await queryRunner.query('DROP TABLE webhook_messages');
    await queryRunner.query('DROP TABLE webhook_endpoints');
  }
}
