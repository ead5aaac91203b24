import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `sessions`: one rotation family of refresh tokens. */
export interface SessionRow {
  [column: string]: unknown;
  id: string;
  project_id: string;
  environment: string;
  user_id: string;
  rotation_key: string;
  created_at: unknown;
  revoked_at: unknown;
}

/** `sessions` for one database; revoked_at set once, on logout, replay or ban. */
export function sessionEntity(t: ColumnTypes): EntitySchema<SessionRow> {
  return new EntitySchema<SessionRow>({
    name: 'sessions',
    tableName: 'sessions',
    columns: {
      id: { type: t.id, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      user_id: { type: t.id },
      rotation_key: { type: t.text },
      created_at: { type: t.timestamp },
      revoked_at: { type: t.timestamp, nullable: true },
    },
    uniques: [{ name: 'sessions_scope_id_key', columns: ['project_id', 'environment', 'id'] }],
    indices: [{ name: 'sessions_user_idx', columns: ['project_id', 'environment', 'user_id'] }],
    foreignKeys: [
      {
        // Composite, so a session can only belong to a user of its own project and environment.
        target: 'users',
        columnNames: ['project_id', 'environment', 'user_id'],
        referencedColumnNames: ['project_id', 'environment', 'id'],
        onDelete: 'CASCADE',
      },
    ],
  });
}
