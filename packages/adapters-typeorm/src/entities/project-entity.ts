import { EntitySchema } from 'typeorm';
import type { ColumnTypes } from './column-types';

/** A row of `projects` as the drivers return it (dates: Date on PostgreSQL, ISO text on SQLite). */
export interface ProjectRow {
  [column: string]: unknown;
  id: string;
  name: string;
  plan: string;
  allowed_origins: unknown;
  default_meta: unknown;
  redirect_urls: unknown;
  magic_link_url: string | null;
  password_reset_url: string | null;
  oidc_login_url: string | null;
  user_limit: number | null;
  access_token_ttl_seconds: number;
  refresh_token_ttl_seconds: number;
  refresh_reuse_grace_seconds: number;
  created_at: unknown;
  updated_at: unknown;
  email_templates: unknown;
  webauthn: unknown;
  absolute_session_lifetime_seconds: number;
  reject_common_passwords: unknown;
}

/** `projects` for one database. The tenant is not environment-scoped itself: both environments hang off one project. */
export function projectEntity(t: ColumnTypes): EntitySchema<ProjectRow> {
  return new EntitySchema<ProjectRow>({
    name: 'projects',
    tableName: 'projects',
    columns: {
      id: { type: t.id, primary: true },
      name: { type: t.text },
      plan: { type: t.text },
      allowed_origins: { type: t.json },
      default_meta: { type: t.json },
      redirect_urls: { type: t.json },
      magic_link_url: { type: t.text, nullable: true },
      password_reset_url: { type: t.text, nullable: true },
      oidc_login_url: { type: t.text, nullable: true },
      user_limit: { type: t.integer, nullable: true },
      access_token_ttl_seconds: { type: t.integer },
      refresh_token_ttl_seconds: { type: t.integer },
      refresh_reuse_grace_seconds: { type: t.integer },
      created_at: { type: t.timestamp },
      updated_at: { type: t.timestamp },
      email_templates: { type: t.json, nullable: true },
      webauthn: { type: t.json, nullable: true },
      absolute_session_lifetime_seconds: { type: t.integer },
      reject_common_passwords: { type: t.boolean },
    },
  });
}
