import type { ApiKeyRecord, ApiKeyRepository, Environment } from '@svc/core';
import type { Database } from './database';
import type { ApiKeyRow } from './rows';
import { assertDate, assertText, assertUuid, isText, isUuid } from './guards';
import { dateParam, nullableDateParam, readDate, readNullableDate } from './row-values';

const COLUMNS = 'id, project_id, environment, key_hash, suffix, created_at, revoked_at';

/** ApiKeyRepository on PostgreSQL or SQLite. Keys are found by hash only; the key never is stored. */
export class TypeormApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: Database) {}

  /** Inserts the record; a second record with the same hash violates `api_keys_key_hash_key` and rejects. */
  async create(record: ApiKeyRecord): Promise<void> {
    assertUuid(record.id, 'api key id');
    assertUuid(record.projectId, 'project id');
    assertText(record.keyHash, 'key hash');
    assertDate(record.createdAt, 'createdAt');
    await this.db.query(`INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      record.id,
      record.projectId,
      record.environment,
      record.keyHash,
      record.suffix,
      dateParam(record.createdAt),
      nullableDateParam(record.revokedAt),
    ]);
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    if (!isText(keyHash)) return null;
    const rows = await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`, [keyHash]);
    return rows.length ? toRecord(rows[0]) : null;
  }

  async listForProject(projectId: string): Promise<ApiKeyRecord[]> {
    if (!isUuid(projectId)) return [];
    const rows = await this.db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
    return rows.map(toRecord);
  }

  /** Conditional on `revoked_at IS NULL`, so of two concurrent revocations only one answers true. */
  async revoke(projectId: string, keyId: string, revokedAt: Date): Promise<boolean> {
    if (!isUuid(projectId) || !isUuid(keyId)) return false;
    assertDate(revokedAt, 'revokedAt');
    const rows = await this.db.query(
      `UPDATE api_keys SET revoked_at = $3
       WHERE id = $2 AND project_id = $1 AND revoked_at IS NULL
       RETURNING id`,
      [projectId, keyId, dateParam(revokedAt)],
    );
    return rows.length === 1;
  }
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    environment: row.environment as Environment,
    keyHash: row.key_hash,
    suffix: row.suffix,
    createdAt: readDate(row.created_at),
    revokedAt: readNullableDate(row.revoked_at),
  };
}
