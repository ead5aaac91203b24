import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `signing_keys`; the private key is stored encrypted by the crypto adapter. */
export interface SigningKeyRow {
  [column: string]: unknown;
  kid: string;
  project_id: string;
  environment: string;
  public_key_pem: string;
  encrypted_private_key: string;
  created_at: unknown;
  retired_at: unknown;
}

/** `signing_keys` for one database; retired_at is null for the scope's current key. */
export function signingKeyEntity(t: ColumnTypes): EntitySchema<SigningKeyRow> {
  return new EntitySchema<SigningKeyRow>({
    name: 'signing_keys',
    tableName: 'signing_keys',
    columns: {
      kid: { type: t.text, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      public_key_pem: { type: t.text },
      encrypted_private_key: { type: t.text },
      created_at: { type: t.timestamp },
      retired_at: { type: t.timestamp, nullable: true },
    },
    // The migration adds a partial unique index (one unretired key per scope), which
    // EntitySchema cannot express portably; this index covers the scope lookups.
    indices: [{ name: 'signing_keys_scope_idx', columns: ['project_id', 'environment', 'created_at'] }],
    foreignKeys: [
      { target: 'projects', columnNames: ['project_id'], referencedColumnNames: ['id'], onDelete: 'CASCADE' },
    ],
  });
}
