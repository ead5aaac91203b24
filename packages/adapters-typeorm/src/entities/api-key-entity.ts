import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `api_keys`: only the SHA-256 of a key and a display suffix are stored. */
export interface ApiKeyRow {
  [column: string]: unknown;
  id: string;
  project_id: string;
  environment: string;
  key_hash: string;
  suffix: string;
  created_at: unknown;
  revoked_at: unknown;
}

/** `api_keys` for one database: unique key hash, listed per project oldest first. */
export function apiKeyEntity(t: ColumnTypes): EntitySchema<ApiKeyRow> {
  return new EntitySchema<ApiKeyRow>({
    name: 'api_keys',
    tableName: 'api_keys',
    columns: {
      id: { type: t.id, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      key_hash: { type: t.text, unique: true },
      suffix: { type: t.text },
      created_at: { type: t.timestamp },
      revoked_at: { type: t.timestamp, nullable: true },
    },
    indices: [{ name: 'api_keys_project_idx', columns: ['project_id', 'created_at'] }],
    foreignKeys: [
      { target: 'projects', columnNames: ['project_id'], referencedColumnNames: ['id'], onDelete: 'CASCADE' },
    ],
  });
}
