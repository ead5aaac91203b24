import type { EmailTemplates, EmailVerificationMode, Plan, Project, ProjectPage, ProjectRepository, ProjectSettings, RateLimitOverrides, RefreshReuseResponse, WebAuthnSettings } from '@svc/core';
import type { Database } from './database';
import type { ProjectRow } from './rows';
import { assertDate, assertText, assertUuid, isText, isUuid } from './guards';
import { containsPattern, likeCondition } from './like-pattern';
import { dateParam, jsonParam, readBoolean, readDate, readJson } from './row-values';

const COLUMNS = `id, name, plan, allowed_origins, default_meta, redirect_urls, magic_link_url,
  password_reset_url, oidc_login_url, user_limit, access_token_ttl_seconds,
  refresh_token_ttl_seconds, refresh_reuse_grace_seconds, created_at, updated_at, email_templates, webauthn,
  absolute_session_lifetime_seconds, reject_common_passwords, rate_limits, audit_retention_days, refresh_reuse_response,
  recent_sign_in_seconds, email_verification, email_verification_url, refresh_reuse_notice`;

/**
 * The settings an update may touch and the column each one lives in. Updates iterate over this
 * table, not over the caller's object, so no caller-supplied key ever reaches the SQL text.
 */
const SETTING_COLUMNS: { [K in keyof Required<ProjectSettings>]: { column: string; json?: true } } = {
  name: { column: 'name' },
  plan: { column: 'plan' },
  allowedOrigins: { column: 'allowed_origins', json: true },
  defaultMeta: { column: 'default_meta', json: true },
  redirectUrls: { column: 'redirect_urls', json: true },
  magicLinkUrl: { column: 'magic_link_url' },
  passwordResetUrl: { column: 'password_reset_url' },
  oidcLoginUrl: { column: 'oidc_login_url' },
  userLimit: { column: 'user_limit' },
  accessTokenTtlSeconds: { column: 'access_token_ttl_seconds' },
  refreshTokenTtlSeconds: { column: 'refresh_token_ttl_seconds' },
  refreshReuseGraceSeconds: { column: 'refresh_reuse_grace_seconds' },
  absoluteSessionLifetimeSeconds: { column: 'absolute_session_lifetime_seconds' },
  rejectCommonPasswords: { column: 'reject_common_passwords' },
  auditRetentionDays: { column: 'audit_retention_days' },
  refreshReuseResponse: { column: 'refresh_reuse_response' },
  refreshReuseNotice: { column: 'refresh_reuse_notice' },
  recentSignInSeconds: { column: 'recent_sign_in_seconds' },
  emailVerification: { column: 'email_verification' },
  emailVerificationUrl: { column: 'email_verification_url' },
  emailTemplates: { column: 'email_templates', json: true },
  webauthn: { column: 'webauthn', json: true },
  rateLimits: { column: 'rate_limits', json: true },
};

/** ProjectRepository on PostgreSQL or SQLite through plain parameterised SQL. */
export class TypeormProjectRepository implements ProjectRepository {
  constructor(private readonly db: Database) {}

  /** Inserts the project; a duplicate id violates the primary key and rejects. */
  async create(project: Project): Promise<void> {
    assertUuid(project.id, 'project id');
    assertText(project.name, 'project name');
    assertDate(project.createdAt, 'createdAt');
    assertDate(project.updatedAt, 'updatedAt');
    await this.db.query(
      `INSERT INTO projects (${COLUMNS})
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)`,
      [
        project.id,
        project.name,
        project.plan,
        jsonParam(project.allowedOrigins),
        jsonParam(project.defaultMeta),
        jsonParam(project.redirectUrls),
        project.magicLinkUrl,
        project.passwordResetUrl,
        project.oidcLoginUrl,
        project.userLimit,
        project.accessTokenTtlSeconds,
        project.refreshTokenTtlSeconds,
        project.refreshReuseGraceSeconds,
        dateParam(project.createdAt),
        dateParam(project.updatedAt),
        project.emailTemplates === null ? null : jsonParam(project.emailTemplates),
        project.webauthn === null ? null : jsonParam(project.webauthn),
        project.absoluteSessionLifetimeSeconds,
        project.rejectCommonPasswords,
        project.rateLimits === null ? null : jsonParam(project.rateLimits),
        project.auditRetentionDays,
        project.refreshReuseResponse,
        project.recentSignInSeconds,
        project.emailVerification,
        project.emailVerificationUrl,
        project.refreshReuseNotice,
      ],
    );
  }

  async findById(id: string): Promise<Project | null> {
    if (!isUuid(id)) return null;
    const rows = await this.db.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE id = $1`, [id]);
    return rows.length ? toProject(rows[0]) : null;
  }

  /** One UPDATE ... RETURNING: the read of the result cannot interleave with another update. */
  async update(id: string, settings: ProjectSettings, updatedAt: Date): Promise<Project | null> {
    if (!isUuid(id)) return null;
    assertDate(updatedAt, 'updatedAt');
    const params: unknown[] = [id, dateParam(updatedAt)];
    const sets = ['updated_at = $2'];
    for (const [key, target] of Object.entries(SETTING_COLUMNS) as [keyof ProjectSettings, { column: string; json?: true }][]) {
      const value = settings[key];
      if (value === undefined) continue;
      // A cleared JSON setting is SQL NULL, not the JSON text 'null'.
      params.push(target.json && value !== null ? jsonParam(value) : value);
      sets.push(`${target.column} = $${params.length}`);
    }
    const rows = await this.db.query<ProjectRow>(`UPDATE projects SET ${sets.join(', ')} WHERE id = $1 RETURNING ${COLUMNS}`, params);
    return rows.length ? toProject(rows[0]) : null;
  }

  /** Keyset paging by id (the primary key); one extra row tells whether a next page exists. */
  async list(query: { search?: string; limit: number; cursor?: string }): Promise<ProjectPage> {
    const { search, limit, cursor } = query;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    if ((cursor !== undefined && !isUuid(cursor)) || (search !== undefined && !isText(search))) return { projects: [], nextCursor: null };
    const params: unknown[] = [];
    const conditions = ['1 = 1'];
    if (search !== undefined) conditions.push(likeCondition('lower(name)', params.push(containsPattern(search))));
    if (cursor !== undefined) conditions.push(`id > $${params.push(cursor)}`);
    params.push(limit + 1);
    const rows = await this.db.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT $${params.length}`, params);
    const projects = rows.slice(0, limit).map(toProject);
    return { projects, nextCursor: rows.length > limit ? projects[projects.length - 1].id : null };
  }

  /** Everything of the project goes with it: every table references projects ON DELETE CASCADE. */
  async delete(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query('DELETE FROM projects WHERE id = $1 RETURNING id', [id]);
    return rows.length === 1;
  }

  /** Reads at most one id: the answer costs the same however many projects there are. */
  async isEmpty(): Promise<boolean> {
    const rows = await this.db.query('SELECT id FROM projects LIMIT 1');
    return rows.length === 0;
  }
}

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as Plan,
    allowedOrigins: readJson<string[]>(row.allowed_origins),
    defaultMeta: readJson<Record<string, unknown>>(row.default_meta),
    redirectUrls: readJson<string[]>(row.redirect_urls),
    magicLinkUrl: row.magic_link_url,
    passwordResetUrl: row.password_reset_url,
    oidcLoginUrl: row.oidc_login_url,
    userLimit: row.user_limit === null ? null : Number(row.user_limit),
    accessTokenTtlSeconds: Number(row.access_token_ttl_seconds),
    refreshTokenTtlSeconds: Number(row.refresh_token_ttl_seconds),
    refreshReuseGraceSeconds: Number(row.refresh_reuse_grace_seconds),
    createdAt: readDate(row.created_at),
    updatedAt: readDate(row.updated_at),
    emailTemplates: row.email_templates === null || row.email_templates === undefined ? null : readJson<EmailTemplates>(row.email_templates),
    webauthn: row.webauthn === null || row.webauthn === undefined ? null : readJson<WebAuthnSettings>(row.webauthn),
    absoluteSessionLifetimeSeconds: Number(row.absolute_session_lifetime_seconds),
    rejectCommonPasswords: readBoolean(row.reject_common_passwords),
    rateLimits: row.rate_limits === null || row.rate_limits === undefined ? null : readJson<RateLimitOverrides>(row.rate_limits),
    auditRetentionDays: Number(row.audit_retention_days),
    refreshReuseResponse: row.refresh_reuse_response as RefreshReuseResponse,
    refreshReuseNotice: readBoolean(row.refresh_reuse_notice),
    recentSignInSeconds: Number(row.recent_sign_in_seconds),
    emailVerification: row.email_verification as EmailVerificationMode,
    emailVerificationUrl: row.email_verification_url,
  };
}
