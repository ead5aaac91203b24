import type { OAuthProvider, OAuthProviderConfig, OAuthProviderStore, TenantScope } from '@svc/core';
import { isOAuthProvider } from '@svc/core';
import type { Database } from './database';
import type { OAuthProviderRow } from './rows';
import { assertDate, assertScope, assertText, isScope } from './guards';
import { dateParam, jsonParam, readBoolean, readDate, readJson } from './row-values';

const COLUMNS = `provider, enabled, client_id, sealed_client_secret, scopes, redirect_url, issuer, authorization_url,
  token_url, user_info_url, created_at, updated_at`;

/** OAuthProviderStore on PostgreSQL or SQLite; one row per (project, environment, provider). */
export class TypeormOAuthProviderStore implements OAuthProviderStore {
  constructor(private readonly db: Database) {}

  /** One upsert; its update branch leaves created_at alone, so a replace keeps the first date. */
  async save(scope: TenantScope, config: OAuthProviderConfig): Promise<void> {
    assertScope(scope);
    if (!isOAuthProvider(config.provider)) throw new TypeError('unknown OAuth provider');
    assertText(config.clientId, 'client id');
    assertText(config.sealedClientSecret, 'sealed client secret');
    assertDate(config.createdAt, 'createdAt');
    assertDate(config.updatedAt, 'updatedAt');
    await this.db.query(
      `INSERT INTO oauth_providers (project_id, environment, ${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (project_id, environment, provider) DO UPDATE SET
         enabled = excluded.enabled, client_id = excluded.client_id, sealed_client_secret = excluded.sealed_client_secret,
         scopes = excluded.scopes, redirect_url = excluded.redirect_url, issuer = excluded.issuer,
         authorization_url = excluded.authorization_url, token_url = excluded.token_url,
         user_info_url = excluded.user_info_url, updated_at = excluded.updated_at`,
      [
        scope.projectId,
        scope.environment,
        config.provider,
        config.enabled === true,
        config.clientId,
        config.sealedClientSecret,
        jsonParam(config.scopes),
        config.redirectUrl,
        config.issuer,
        config.authorizationUrl,
        config.tokenUrl,
        config.userInfoUrl,
        dateParam(config.createdAt),
        dateParam(config.updatedAt),
      ],
    );
  }

  async find(scope: TenantScope, provider: OAuthProvider): Promise<OAuthProviderConfig | null> {
    if (!isScope(scope) || !isOAuthProvider(provider)) return null;
    const rows = await this.db.query<OAuthProviderRow>(`SELECT ${COLUMNS} FROM oauth_providers WHERE project_id = $1 AND environment = $2 AND provider = $3`, [
      scope.projectId,
      scope.environment,
      provider,
    ]);
    return rows.length ? toConfig(rows[0]) : null;
  }

  async list(scope: TenantScope): Promise<OAuthProviderConfig[]> {
    if (!isScope(scope)) return [];
    const rows = await this.db.query<OAuthProviderRow>(`SELECT ${COLUMNS} FROM oauth_providers WHERE project_id = $1 AND environment = $2 ORDER BY provider`, [scope.projectId, scope.environment]);
    return rows.map(toConfig);
  }

  async remove(scope: TenantScope, provider: OAuthProvider): Promise<boolean> {
    if (!isScope(scope) || !isOAuthProvider(provider)) return false;
    const rows = await this.db.query('DELETE FROM oauth_providers WHERE project_id = $1 AND environment = $2 AND provider = $3 RETURNING provider', [scope.projectId, scope.environment, provider]);
    return rows.length === 1;
  }
}

function toConfig(row: OAuthProviderRow): OAuthProviderConfig {
  return {
    provider: row.provider as OAuthProvider,
    enabled: readBoolean(row.enabled),
    clientId: row.client_id,
    sealedClientSecret: row.sealed_client_secret,
    scopes: readJson<string[]>(row.scopes),
    redirectUrl: row.redirect_url,
    issuer: row.issuer,
    authorizationUrl: row.authorization_url,
    tokenUrl: row.token_url,
    userInfoUrl: row.user_info_url,
    createdAt: readDate(row.created_at),
    updatedAt: readDate(row.updated_at),
  };
}
