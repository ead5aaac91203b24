import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements } from './dialect';

// Hosted OIDC provider: registered relying parties, and what oidc-provider keeps between
// requests (sessions, interactions, grants, codes, tokens), shared by every API instance.
// Conventions as in the initial schema.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";

function statements(t: { id: string; time: string; json: string; bool: string }): string[] {
  return [
    // Confidential clients keep only the SHA-256 of their secret; public ones have none.
    `CREATE TABLE oidc_clients (
      id ${t.id} PRIMARY KEY,
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      name text NOT NULL,
      redirect_uris ${t.json} NOT NULL,
      post_logout_redirect_uris ${t.json} NOT NULL,
      is_public ${t.bool} NOT NULL,
      secret_hash text NULL,
      created_at ${t.time} NOT NULL,
      CONSTRAINT oidc_clients_secret_check CHECK ((is_public AND secret_hash IS NULL) OR (NOT is_public AND secret_hash IS NOT NULL))
    )`,
    'CREATE INDEX oidc_clients_project_idx ON oidc_clients (project_id, created_at)',
    // One row per artifact, keyed by its issuer (the project), oidc-provider's model name and id;
    // the payload is the provider's JSON. consumed_at is set by one conditional UPDATE, which is
    // what makes a code single-use across instances.
    `CREATE TABLE oidc_artifacts (
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      model text NOT NULL,
      id text NOT NULL,
      payload ${t.json} NOT NULL,
      grant_id text NULL,
      uid text NULL,
      user_code text NULL,
      expires_at ${t.time} NULL,
      consumed_at ${t.time} NULL,
      PRIMARY KEY (project_id, model, id)
    )`,
    // Revocation of a grant's family, session lookup by uid, and the expiry sweep.
    'CREATE INDEX oidc_artifacts_grant_idx ON oidc_artifacts (project_id, model, grant_id) WHERE grant_id IS NOT NULL',
    'CREATE INDEX oidc_artifacts_uid_idx ON oidc_artifacts (project_id, model, uid) WHERE uid IS NOT NULL',
    'CREATE INDEX oidc_artifacts_user_code_idx ON oidc_artifacts (project_id, model, user_code) WHERE user_code IS NOT NULL',
    'CREATE INDEX oidc_artifacts_expiry_idx ON oidc_artifacts (expires_at) WHERE expires_at IS NOT NULL',
  ];
}

const DOWN = ['DROP TABLE oidc_artifacts', 'DROP TABLE oidc_clients'];

/** Adds the hosted OIDC provider's tables. Hand-written like the initial schema; never edit once shipped. */
export class OidcProvider1767916800000 implements MigrationInterface {
  readonly name = 'OidcProvider1767916800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, DOWN);
  }
}
