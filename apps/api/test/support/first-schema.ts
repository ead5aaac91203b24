import { randomBytes, randomUUID } from 'node:crypto';
import { BcryptPasswordHasher, KeyEncryption, RsaSigningKeyFactory } from '@svc/adapters-crypto';
import { firstReleaseDataSource, type TestDatabase } from '@svc/adapters-typeorm/testing';
import { apiKeySuffix, formatApiKey, hashApiKey, sha256Hex } from '@svc/core';

// A database as the first release left it: only the first migration ran, and its data was written
// with that release's columns. The rows are written in SQL (today's repositories write columns
// the first schema lacks), with the real crypto adapters, so the upgraded service can use them.

/** What the first release stored, with the secrets a client of it still holds. */
export interface FirstReleaseData {
  projectId: string;
  apiKey: string;
  email: string;
  password: string;
  userId: string;
  /** A refresh token issued by the first release (its session must survive the upgrade). */
  refreshToken: string;
  kid: string;
}

/** Runs the first migration only and writes a project, keys, a user and a session with it. */
export async function createFirstReleaseDatabase(where: TestDatabase, masterKey: Buffer): Promise<FirstReleaseData> {
  const dataSource = firstReleaseDataSource(where);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'all' });
    return await seed(dataSource, masterKey);
  } finally {
    await dataSource.destroy();
  }
}

async function seed(dataSource: ReturnType<typeof firstReleaseDataSource>, masterKey: Buffer): Promise<FirstReleaseData> {
  const postgres = dataSource.options.type === 'postgres';
  // `$n` placeholders on both databases, each used once and in order.
  const run = (sql: string, params: unknown[]) => dataSource.query(postgres ? sql : sql.replace(/\$\d+/g, '?'), params);
  const json = (value: unknown) => JSON.stringify(value);
  const bool = (value: boolean) => (postgres ? value : value ? 1 : 0);
  const now = new Date();
  const at = now.toISOString();
  const scope = { projectId: randomUUID(), environment: 'production' as const };
  const data = { projectId: scope.projectId, email: 'ada@example.com', password: 'correct horse battery', userId: randomUUID(), refreshToken: randomBytes(32).toString('base64url') };

  await run(
    `INSERT INTO projects (id, name, plan, allowed_origins, default_meta, redirect_urls, magic_link_url, password_reset_url, oidc_login_url,
       user_limit, access_token_ttl_seconds, refresh_token_ttl_seconds, refresh_reuse_grace_seconds, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [scope.projectId, 'Old project', 'FREE', json([]), json({ plan: 'old' }), json([]), null, null, null, null, 900, 5_184_000, 0, at, at],
  );
  const apiKey = formatApiKey('production', randomBytes(32));
  await run('INSERT INTO api_keys (id, project_id, environment, key_hash, suffix, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    randomUUID(),
    scope.projectId,
    scope.environment,
    hashApiKey(apiKey),
    apiKeySuffix(apiKey),
    at,
    null,
  ]);
  const key = await new RsaSigningKeyFactory({ encryption: new KeyEncryption({ masterKey }) }).generate(scope, now);
  await run('INSERT INTO signing_keys (kid, project_id, environment, public_key_pem, encrypted_private_key, created_at, retired_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    key.kid,
    scope.projectId,
    scope.environment,
    key.publicKeyPem,
    key.encryptedPrivateKey,
    at,
    null,
  ]);
  const passwordHash = await new BcryptPasswordHasher({ cost: 4 }).hash(data.password);
  await run(
    `INSERT INTO users (id, project_id, environment, email, password_hash, role, meta, email_verified, banned_at, created_at, last_login_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [data.userId, scope.projectId, scope.environment, data.email, passwordHash, 'user', json({ plan: 'old', since: 'v1' }), bool(false), null, at, null],
  );
  const sessionId = randomUUID();
  await run('INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    sessionId,
    scope.projectId,
    scope.environment,
    data.userId,
    randomBytes(32).toString('base64url'),
    at,
    null,
  ]);
  const expires = new Date(now.getTime() + 86_400_000).toISOString();
  await run('INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at, used_at, successor_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    sha256Hex(data.refreshToken),
    scope.projectId,
    scope.environment,
    sessionId,
    at,
    expires,
    null,
    null,
  ]);
  return { ...data, apiKey, kid: key.kid };
}
