import type { MigrationInterface, QueryRunner } from 'typeorm';
import { columnTypes, runStatements } from './dialect';

// Social sign-in: identity-provider settings per project environment, and provider
// accounts linked to users. Conventions as in the initial schema.

const ENVIRONMENT_CHECK = "CHECK (environment IN ('production', 'sandbox'))";
const PROVIDER_CHECK = "CHECK (provider IN ('google', 'github', 'discord', 'oidc'))";

function statements(t: { id: string; time: string; json: string; bool: string }): string[] {
  return [
    // One row per (project, environment, provider); the client secret is stored sealed only.
    `CREATE TABLE oauth_providers (
      project_id ${t.id} NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      provider text NOT NULL ${PROVIDER_CHECK},
      enabled ${t.bool} NOT NULL,
      client_id text NOT NULL,
      sealed_client_secret text NOT NULL,
      scopes ${t.json} NOT NULL,
      redirect_url text NULL,
      issuer text NULL,
      authorization_url text NULL,
      token_url text NULL,
      user_info_url text NULL,
      created_at ${t.time} NOT NULL,
      updated_at ${t.time} NOT NULL,
      PRIMARY KEY (project_id, environment, provider)
    )`,
    // The primary key is the uniqueness the linking rules lean on: one provider account, one
    // user. Identities die with their user (composite key: never across tenants).
    `CREATE TABLE oauth_identities (
      project_id ${t.id} NOT NULL,
      environment text NOT NULL ${ENVIRONMENT_CHECK},
      provider text NOT NULL ${PROVIDER_CHECK},
      subject text NOT NULL,
      user_id ${t.id} NOT NULL,
      email text NULL,
      created_at ${t.time} NOT NULL,
      PRIMARY KEY (project_id, environment, provider, subject),
      CONSTRAINT oauth_identities_user_fkey FOREIGN KEY (project_id, environment, user_id)
        REFERENCES users (project_id, environment, id) ON DELETE CASCADE
    )`,
    'CREATE INDEX oauth_identities_user_idx ON oauth_identities (project_id, environment, user_id)',
  ];
}

const DOWN = ['DROP TABLE oauth_identities', 'DROP TABLE oauth_providers'];

/** Adds the social sign-in tables. Hand-written like the initial schema; never edit once shipped. */
export class SocialSignIn1767657600000 implements MigrationInterface {
  readonly name = 'SocialSignIn1767657600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, statements(columnTypes(queryRunner)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await runStatements(queryRunner, DOWN);
  }
}
