import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `mail_outbox`; the payload is sealed (it carries a link) and wiped once it is not needed. */
export interface MailOutboxRow {
  [column: string]: unknown;
  id: string;
  project_id: string;
  environment: string;
  recipient: string;
  template: string;
  sealed_payload: string | null;
  status: string;
  attempts: number;
  next_attempt_at: unknown;
  lease_until: unknown;
  last_error: string | null;
  message_id: string | null;
  created_at: unknown;
  expires_at: unknown;
  sent_at: unknown;
}

/** `mail_outbox` for one database: pending -> sending -> sent | pending (retry) | dead. */
export function mailOutboxEntity(t: ColumnTypes): EntitySchema<MailOutboxRow> {
  return new EntitySchema<MailOutboxRow>({
    name: 'mail_outbox',
    tableName: 'mail_outbox',
    columns: {
      id: { type: t.id, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      recipient: { type: t.text },
      template: { type: t.text },
      sealed_payload: { type: t.text, nullable: true },
      status: { type: t.text },
      attempts: { type: t.integer },
      next_attempt_at: { type: t.timestamp },
      lease_until: { type: t.timestamp, nullable: true },
      last_error: { type: t.text, nullable: true },
      message_id: { type: t.text, nullable: true },
      created_at: { type: t.timestamp },
      expires_at: { type: t.timestamp },
      sent_at: { type: t.timestamp, nullable: true },
    },
    // The worker's partial indexes (due, lease, dead) live in the migration only.
    indices: [{ name: 'mail_outbox_recipient_idx', columns: ['project_id', 'environment', 'recipient', 'created_at'] }],
    foreignKeys: [
      { target: 'projects', columnNames: ['project_id'], referencedColumnNames: ['id'], onDelete: 'CASCADE' },
    ],
  });
}
