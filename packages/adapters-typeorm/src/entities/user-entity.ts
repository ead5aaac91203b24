import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `users`; every lookup filters on (project_id, environment). */
export interface UserRow {
  [column: string]: unknown;
  id: string;
  project_id: string;
  environment: string;
  email: string;
  password_hash: string | null;
  role: string;
  meta: unknown;
  email_verified: unknown;
  banned_at: unknown;
  created_at: unknown;
  last_login_at: unknown;
}

/** `users` for one database: unique e-mail per (project, environment). */
export function userEntity(t: ColumnTypes): EntitySchema<UserRow> {
  return new EntitySchema<UserRow>({
    name: 'users',
    tableName: 'users',
    columns: {
      id: { type: t.id, primary: true },
      project_id: { type: t.id },
      environment: { type: t.text },
      email: { type: t.text },
      password_hash: { type: t.text, nullable: true },
      role: { type: t.text },
      meta: { type: t.json },
      email_verified: { type: t.boolean },
      banned_at: { type: t.timestamp, nullable: true },
      created_at: { type: t.timestamp },
      last_login_at: { type: t.timestamp, nullable: true },
    },
    uniques: [
      { name: 'users_scope_email_key', columns: ['project_id', 'environment', 'email'] },
      // Also the paging index, and the target of sessions' scope-preserving foreign key.
      { name: 'users_scope_id_key', columns: ['project_id', 'environment', 'id'] },
    ],
    foreignKeys: [
      { target: 'projects', columnNames: ['project_id'], referencedColumnNames: ['id'], onDelete: 'CASCADE' },
    ],
  });
}
