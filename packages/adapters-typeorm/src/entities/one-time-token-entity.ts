import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `one_time_tokens`, keyed by the token's SHA-256 (the raw token is never stored). */
export interface OneTimeTokenRow {
  [column: string]: unknown;
  token_hash: string;
  project_id: string;
  environment: string;
  purpose: string;
  user_id: string | null;
  data: unknown;
  created_at: unknown;
  expires_at: unknown;
  consumed_at: unknown;
  failed_attempts: number;
}

/** `one_time_tokens` for one database; consumed_at marks a token used, superseded or revoked. */
export function oneTimeTokenEntity(t: ColumnTypes): EntitySchema<OneTimeTokenRow> {
  return new EntitySchema<OneTimeTokenRow>({
    name: 'one_time_tokens',
    tableName: 'one_time_tokens',
    columns: {
      token_hash: { type: t.text, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      purpose: { type: t.text },
      user_id: { type: t.id, nullable: true },
      data: { type: t.json },
      created_at: { type: t.timestamp },
      expires_at: { type: t.timestamp },
      consumed_at: { type: t.timestamp, nullable: true },
      failed_attempts: { type: t.integer, default: 0 },
    },
    // The migration's index is partial (open tokens only), which EntitySchema cannot express portably.
    foreignKeys: [
      { target: 'projects', columnNames: ['project_id'], referencedColumnNames: ['id'], onDelete: 'CASCADE' },
    ],
  });
}
