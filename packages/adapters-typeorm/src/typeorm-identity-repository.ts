import type { IdentityRepository, OAuthIdentity, OAuthProvider, TenantScope } from '@svc/core';
import { compareIdentities, isOAuthProvider } from '@svc/core';
import type { Database } from './database';
import type { OAuthIdentityRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, readDate } from './row-values';

const COLUMNS = 'provider, subject, user_id, email, created_at';

/** IdentityRepository on PostgreSQL or SQLite; the primary key makes each provider account link once. */
export class TypeormIdentityRepository implements IdentityRepository {
  constructor(private readonly db: Database) {}

  /** ON CONFLICT DO NOTHING on the primary key: of concurrent links exactly one inserts a row. */
  async link(scope: TenantScope, identity: OAuthIdentity): Promise<'created' | 'exists'> {
    assertScope(scope);
    if (!isOAuthProvider(identity.provider)) throw new TypeError('unknown OAuth provider');
    assertText(identity.subject, 'subject');
    assertUuid(identity.userId, 'user id');
    assertDate(identity.createdAt, 'createdAt');
    const rows = await this.db.query(
      `INSERT INTO oauth_identities (project_id, environment, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (project_id, environment, provider, subject) DO NOTHING RETURNING subject`,
      [scope.projectId, scope.environment, identity.provider, identity.subject, identity.userId, identity.email, dateParam(identity.createdAt)],
    );
    return rows.length === 1 ? 'created' : 'exists';
  }

  async find(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<OAuthIdentity | null> {
    if (!isScope(scope) || !isOAuthProvider(provider) || !isText(subject)) return null;
    const rows = await this.db.query<OAuthIdentityRow>(`SELECT ${COLUMNS} FROM oauth_identities WHERE project_id = $1 AND environment = $2 AND provider = $3 AND subject = $4`, [
      scope.projectId,
      scope.environment,
      provider,
      subject,
    ]);
    return rows.length ? toIdentity(rows[0]) : null;
  }

  /** Sorted here rather than by ORDER BY: database collations differ, code-unit order does not. */
  async listForUser(scope: TenantScope, userId: string): Promise<OAuthIdentity[]> {
    if (!isScope(scope) || !isUuid(userId)) return [];
    const rows = await this.db.query<OAuthIdentityRow>(`SELECT ${COLUMNS} FROM oauth_identities WHERE project_id = $1 AND environment = $2 AND user_id = $3`, [
      scope.projectId,
      scope.environment,
      userId,
    ]);
    return rows.map(toIdentity).sort(compareIdentities);
  }

  async unlink(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<boolean> {
    if (!isScope(scope) || !isOAuthProvider(provider) || !isText(subject)) return false;
    const rows = await this.db.query('DELETE FROM oauth_identities WHERE project_id = $1 AND environment = $2 AND provider = $3 AND subject = $4 RETURNING subject', [
      scope.projectId,
      scope.environment,
      provider,
      subject,
    ]);
    return rows.length === 1;
  }
}

function toIdentity(row: OAuthIdentityRow): OAuthIdentity {
  return {
    provider: row.provider as OAuthProvider,
    subject: row.subject,
    userId: row.user_id,
    email: row.email,
    createdAt: readDate(row.created_at),
  };
}
