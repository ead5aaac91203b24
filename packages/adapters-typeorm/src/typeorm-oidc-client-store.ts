import type { Environment, OidcClient, OidcClientStore, TenantScope } from '@svc/core';
import { isEnvironment } from '@svc/core';
import type { Database } from './database';
import type { OidcClientRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isUuid } from './guards';
import { dateParam, jsonParam, readBoolean, readDate, readJson } from './row-values';

const COLUMNS = 'id, project_id, environment, name, redirect_uris, post_logout_redirect_uris, is_public, secret_hash, created_at';

/** OidcClientStore on PostgreSQL or SQLite. Client ids are UUIDs, checked before they reach SQL. */
export class TypeormOidcClientStore implements OidcClientStore {
  constructor(private readonly db: Database) {}

  async create(scope: TenantScope, client: OidcClient): Promise<void> {
    assertScope(scope);
    assertUuid(client.clientId, 'client id');
    assertText(client.name, 'name');
    assertDate(client.createdAt, 'createdAt');
    // The table's CHECK refuses a confidential client without a hash (and a public one with one).
    await this.db.query(`INSERT INTO oidc_clients (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
      client.clientId,
      scope.projectId,
      scope.environment,
      client.name,
      jsonParam(client.redirectUris),
      jsonParam(client.postLogoutRedirectUris),
      client.public === true,
      client.secretHash,
      dateParam(client.createdAt),
    ]);
  }

  async find(projectId: string, clientId: string): Promise<OidcClient | null> {
    if (!isUuid(projectId) || !isUuid(clientId)) return null;
    const rows = await this.db.query<OidcClientRow>(`SELECT ${COLUMNS} FROM oidc_clients WHERE project_id = $1 AND id = $2`, [projectId, clientId]);
    return rows.length ? toClient(rows[0]) : null;
  }

  async listForProject(projectId: string, environment?: Environment): Promise<OidcClient[]> {
    if (!isUuid(projectId) || (environment !== undefined && !isEnvironment(environment))) return [];
    const filter = environment === undefined ? '' : ' AND environment = $2';
    const rows = await this.db.query<OidcClientRow>(
      `SELECT ${COLUMNS} FROM oidc_clients WHERE project_id = $1${filter} ORDER BY created_at, id`,
      environment === undefined ? [projectId] : [projectId, environment],
    );
    return rows.map(toClient);
  }

  async remove(projectId: string, clientId: string): Promise<boolean> {
    if (!isUuid(projectId) || !isUuid(clientId)) return false;
    const rows = await this.db.query('DELETE FROM oidc_clients WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, clientId]);
    return rows.length > 0;
  }
}

function toClient(row: OidcClientRow): OidcClient {
  return {
    clientId: row.id,
    projectId: row.project_id,
    environment: row.environment as Environment,
    name: row.name,
    redirectUris: readJson<string[]>(row.redirect_uris),
    postLogoutRedirectUris: readJson<string[]>(row.post_logout_redirect_uris),
    public: readBoolean(row.is_public),
    secretHash: row.secret_hash,
    createdAt: readDate(row.created_at),
  };
}
