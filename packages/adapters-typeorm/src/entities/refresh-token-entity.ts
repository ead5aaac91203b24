import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `refresh_tokens`, keyed by the token's SHA-256. */
export interface RefreshTokenRow {
  [column: string]: unknown;
  token_hash: string;
  project_id: string;
  environment: string;
  session_id: string;
  created_at: unknown;
  expires_at: unknown;
  used_at: unknown;
  successor_hash: string | null;
}

/** `refresh_tokens` for one database; used_at marks a token consumed by rotation. */
export function refreshTokenEntity(t: ColumnTypes): EntitySchema<RefreshTokenRow> {
  return new EntitySchema<RefreshTokenRow>({
    name: 'refresh_tokens',
    tableName: 'refresh_tokens',
    columns: {
      token_hash: { type: t.text, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      session_id: { type: t.id },
      created_at: { type: t.timestamp },
      expires_at: { type: t.timestamp },
      used_at: { type: t.timestamp, nullable: true },
      successor_hash: { type: t.text, nullable: true },
    },
    indices: [{ name: 'refresh_tokens_session_idx', columns: ['project_id', 'environment', 'session_id'] }],
    foreignKeys: [
      {
        target: 'sessions',
        columnNames: ['project_id', 'environment', 'session_id'],
        referencedColumnNames: ['project_id', 'environment', 'id'],
        onDelete: 'CASCADE',
      },
    ],
  });
}
