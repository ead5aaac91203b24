import type { NewOidcArtifact, OidcArtifact, OidcArtifactStore } from '@svc/core';
import { assertLimit } from './bounded-delete';
import type { Database } from './database';
import type { OidcArtifactRow } from './rows';
import { assertDate, assertText, assertUuid, isText, isUuid } from './guards';
import { dateParam, jsonParam, nullableDateParam, readJson, readNullableDate } from './row-values';

const COLUMNS = 'model, id, payload, grant_id, uid, user_code, expires_at, consumed_at';
/** $1 project, $2 model; `now` is the last parameter: expired rows are never answered. */
const LIVE = (now: string) => `project_id = $1 AND model = $2 AND (expires_at IS NULL OR expires_at > ${now})`;

/** OidcArtifactStore on PostgreSQL or SQLite: one table, keyed by (project_id, model, id). */
export class TypeormOidcArtifactStore implements OidcArtifactStore {
  constructor(private readonly db: Database) {}

  /** One INSERT ... ON CONFLICT DO UPDATE; consumed_at is not in the update list, so it survives. */
  async upsert(projectId: string, artifact: NewOidcArtifact): Promise<void> {
    assertUuid(projectId, 'project id');
    assertText(artifact.model, 'model');
    assertText(artifact.id, 'artifact id');
    if (artifact.expiresAt !== null) assertDate(artifact.expiresAt, 'expiresAt');
    await this.db.query(
      `INSERT INTO oidc_artifacts (project_id, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)
       ON CONFLICT (project_id, model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
         uid = excluded.uid, user_code = excluded.user_code, expires_at = excluded.expires_at`,
      [projectId, artifact.model, artifact.id, jsonParam(artifact.payload), artifact.grantId, artifact.uid, artifact.userCode, nullableDateParam(artifact.expiresAt)],
    );
  }

  async find(projectId: string, model: string, id: string, now: Date): Promise<OidcArtifact | null> {
    return this.findOne(projectId, model, 'id', id, now);
  }

  async findByUid(projectId: string, model: string, uid: string, now: Date): Promise<OidcArtifact | null> {
    return this.findOne(projectId, model, 'uid', uid, now);
  }

  async findByUserCode(projectId: string, model: string, userCode: string, now: Date): Promise<OidcArtifact | null> {
    return this.findOne(projectId, model, 'user_code', userCode, now);
  }

  /**
   * `UPDATE ... WHERE consumed_at IS NULL RETURNING`: on PostgreSQL a second consumer waits on the
   * row lock and then re-reads the winner's committed row, so it updates nothing; SQLite runs the
   * statements one at a time. Either way exactly one caller sees a row come back.
   */
  async consume(projectId: string, model: string, id: string, at: Date): Promise<boolean> {
    if (!isUuid(projectId) || !isText(model) || !isText(id)) return false;
    assertDate(at, 'at');
    const rows = await this.db.query('UPDATE oidc_artifacts SET consumed_at = $4 WHERE project_id = $1 AND model = $2 AND id = $3 AND consumed_at IS NULL RETURNING id', [
      projectId,
      model,
      id,
      dateParam(at),
    ]);
    return rows.length > 0;
  }

  async destroy(projectId: string, model: string, id: string): Promise<void> {
    if (!isUuid(projectId) || !isText(model) || !isText(id)) return;
    await this.db.query('DELETE FROM oidc_artifacts WHERE project_id = $1 AND model = $2 AND id = $3', [projectId, model, id]);
  }

  async revokeByGrantId(projectId: string, model: string, grantId: string): Promise<number> {
    if (!isUuid(projectId) || !isText(model) || !isText(grantId)) return 0;
    const rows = await this.db.query('DELETE FROM oidc_artifacts WHERE project_id = $1 AND model = $2 AND grant_id = $3 RETURNING id', [projectId, model, grantId]);
    return rows.length;
  }

  /** Deletes by primary key from a bounded sub-select, so one sweep never holds a big lock. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    assertDate(now, 'now');
    assertLimit(limit);
    const rows = await this.db.query(
      `DELETE FROM oidc_artifacts WHERE (project_id, model, id) IN (
         SELECT project_id, model, id FROM oidc_artifacts WHERE expires_at IS NOT NULL AND expires_at <= $1 LIMIT $2
       ) RETURNING id`,
      [dateParam(now), limit],
    );
    return rows.length;
  }

  private async findOne(projectId: string, model: string, column: 'id' | 'uid' | 'user_code', value: string, now: Date): Promise<OidcArtifact | null> {
    if (!isUuid(projectId) || !isText(model) || !isText(value)) return null;
    assertDate(now, 'now');
    const rows = await this.db.query<OidcArtifactRow>(`SELECT ${COLUMNS} FROM oidc_artifacts WHERE ${LIVE('$4')} AND ${column} = $3 LIMIT 1`, [projectId, model, value, dateParam(now)]);
    return rows.length ? toArtifact(rows[0]) : null;
  }
}

function toArtifact(row: OidcArtifactRow): OidcArtifact {
  return {
    model: row.model,
    id: row.id,
    payload: readJson<Record<string, unknown>>(row.payload),
    grantId: row.grant_id,
    uid: row.uid,
    userCode: row.user_code,
    expiresAt: readNullableDate(row.expires_at),
    consumedAt: readNullableDate(row.consumed_at),
  };
}
