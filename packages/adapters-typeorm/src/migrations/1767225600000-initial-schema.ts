import type { MigrationInterface, QueryRunner } from 'typeorm';

// The initial schema, once per database. Kept as plain SQL so a reviewer sees exactly what runs.
// Conventions: every table with tenant data carries (project_id, environment); child tables point
// at their parent through (project_id, environment, id), so a row can never change tenant by
// reference; deletes cascade project -> users -> sessions -> refresh_tokens.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

/** Builds the statements with the given column types; the two dialects differ only in types. */
function statements(t: { id: string; time: string; json: string; bool: string }): string[] {
  return [
    `CREATE TABLE projects (
      id ${t.id} PRIMARY KEY,
      name text NOT NULL,
      plan text NOT NULL CHECK (plan IN ('FREE', 'SOLO', 'PRO')),
      allowed_origins ${t.json} NOT NULL,
      default_meta ${t.json} NOT NULL,
      redirect_urls ${t.json} NOT NULL,
      magic_link_url text NULL,
      password_reset_url text NULL,
      oidc_login_url text NULL,
      user_limit integer NULL,
      access_token_ttl_seconds integer NOT NULL,
      refresh_token_ttl_seconds integer NOT NULL,
      refresh_reuse_grace_seconds integer NOT NULL,
      created_at ${t.time} NOT NULL,
      updated_at ${t.time} NOT NULL
    )`,
    `CREATE TABLE api_keys (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      key_hash text NOT NULL CONSTRAINT api_keys_key_hash_key UNIQUE,
      suffix text NOT NULL,
      created_at ${t.time} NOT NULL,
      revoked_at ${t.time} NULL
    )`,
    'CREATE INDEX api_keys_project_idx ON api_keys (project_id, created_at)',
    `CREATE TABLE users (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      email text NOT NULL,
      password_hash text NULL,
      role text NOT NULL,
      meta ${t.json} NOT NULL,
      email_verified ${t.bool} NOT NULL,
      banned_at ${t.time} NULL,
      created_at ${t.time} NOT NULL,
      last_login_at ${t.time} NULL,
      CONSTRAINT users_scope_email_key UNIQUE (project_id, environment, email),
      CONSTRAINT users_scope_id_key UNIQUE (project_id, environment, id)
    )`,
    `CREATE TABLE sessions (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      user_id ${t.id} NOT NULL,
      rotation_key text NOT NULL,
      created_at ${t.time} NOT NULL,
      revoked_at ${t.time} NULL,
      CONSTRAINT sessions_scope_id_key UNIQUE (project_id, environment, id),
      CONSTRAINT sessions_user_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES users (project_id, environment, id) ON DELETE CASCADE
    )`,
    'CREATE INDEX sessions_user_idx ON sessions (project_id, environment, user_id)',
    `CREATE TABLE refresh_tokens (
      token_hash text PRIMARY KEY,
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      session_id ${t.id} NOT NULL,
      created_at ${t.time} NOT NULL,
      expires_at ${t.time} NOT NULL,
      used_at ${t.time} NULL,
      successor_hash text NULL,
      CONSTRAINT refresh_tokens_session_fkey FOREIGN KEY (project_id, environment, session_id)
        REFERENCES sessions (project_id, environment, id) ON DELETE CASCADE
    )`,
    'CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (project_id, environment, session_id)',
    `CREATE TABLE signing_keys (
      kid text PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      public_key_pem text NOT NULL,
      encrypted_private_key text NOT NULL,
      created_at ${t.time} NOT NULL,
      retired_at ${t.time} NULL
    )`,
    'CREATE INDEX signing_keys_scope_idx ON signing_keys (project_id, environment, created_at)',
    // The database itself refuses a second current key in one scope, whatever the code does.
    `CREATE UNIQUE INDEX signing_keys_one_current_idx ON signing_keys (project_id, environment)
      WHERE retired_at IS NULL`,
  ];
}

/** PostgreSQL: native uuid, timestamptz (microsecond precision, we write milliseconds) and jsonb. */
const POSTGRES_UP = statements({ id: 'uuid', time: 'timestamptz', json: 'jsonb', bool: 'boolean' });

/**
 * SQLite: ids and timestamps as text (ISO-8601 with milliseconds, which round-trips a JS Date
 * exactly and sorts chronologically), JSON as text, booleans as 0/1 integers.
 */
const SQLITE_UP = statements({ id: 'text', time: 'text', json: 'text', bool: 'integer' });

/** Children first, so foreign keys never block the drop. */
const DOWN = ['signing_keys', 'refresh_tokens', 'sessions', 'users', 'api_keys', 'projects'].map((table) => `DROP TABLE ${table}`);

/**
 * Creates the first release's tables (later migrations add the rest). Hand-written (never generated, never `synchronize`) so the
 * constraints the concurrency rules lean on — unique e-mail per scope, unique key hash, composite
 * foreign keys, one current signing key per scope — are explicit and reviewed.
 */
export class InitialSchema1767225600000 implements MigrationInterface {
  readonly name = 'InitialSchema1767225600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const sql of isPostgres(queryRunner) ? POSTGRES_UP : SQLITE_UP) await queryRunner.query(sql);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const sql of DOWN) await queryRunner.query(sql);
  }
}

function isPostgres(queryRunner: QueryRunner): boolean {
  const type = queryRunner.dataSource.options.type;
  if (type === 'postgres') return true;
  if (type === 'better-sqlite3') return false;
  throw new Error(`InitialSchema: unsupported database type ${type}`);
}
