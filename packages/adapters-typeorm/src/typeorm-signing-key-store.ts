import type { Environment, SigningKeyRecord, SigningKeyStore, TenantScope } from '@svc/core';
import type { Database } from './database';
import type { SigningKeyRow } from './rows';
import { assertDate, assertScope, assertText, isScope, isText } from './guards';
import { dateParam, readDate, readNullableDate } from './row-values';

const COLUMNS = 'kid, project_id, environment, public_key_pem, encrypted_private_key, created_at, retired_at';

/** SigningKeyStore on PostgreSQL or SQLite. */
export class TypeormSigningKeyStore implements SigningKeyStore {
  constructor(private readonly db: Database) {}

  /**
   * Retire-then-insert in one transaction. The partial unique index (one unretired key per scope)
   * would make the second of two concurrent rotations fail on insert; the advisory lock on the
   * scope (PostgreSQL) instead queues it, so it retires the first one's key and becomes current.
   * The key is stored under `scope`, whatever scope fields the record carries.
   */
  async rotate(scope: TenantScope, key: SigningKeyRecord): Promise<void> {
    assertScope(scope);
    assertText(key.kid, 'kid');
    assertText(key.publicKeyPem, 'public key');
    assertText(key.encryptedPrivateKey, 'encrypted private key');
    assertDate(key.createdAt, 'createdAt');
    const { projectId, environment } = scope;
    await this.db.transaction(
      async (tx) => {
        await tx.query(
          `UPDATE signing_keys SET retired_at = $3
           WHERE project_id = $1 AND environment = $2 AND retired_at IS NULL`,
          [projectId, environment, dateParam(key.createdAt)],
        );
        await tx.query(`INSERT INTO signing_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL)`, [
          key.kid,
          projectId,
          environment,
          key.publicKeyPem,
          key.encryptedPrivateKey,
          dateParam(key.createdAt),
        ]);
      },
      { lock: `signing_keys:${projectId}:${environment}` },
    );
  }

  async anyCurrent(): Promise<SigningKeyRecord | null> {
    const rows = await this.db.query<SigningKeyRow>(`SELECT ${COLUMNS} FROM signing_keys WHERE retired_at IS NULL LIMIT 1`);
    return rows.length ? toRecord(rows[0]) : null;
  }

  async current(scope: TenantScope): Promise<SigningKeyRecord | null> {
    if (!isScope(scope)) return null;
    const rows = await this.db.query<SigningKeyRow>(
      `SELECT ${COLUMNS} FROM signing_keys
       WHERE project_id = $1 AND environment = $2 AND retired_at IS NULL`,
      [scope.projectId, scope.environment],
    );
    return rows.length ? toRecord(rows[0]) : null;
  }

  async listPublished(scope: TenantScope, retiredSince: Date): Promise<SigningKeyRecord[]> {
    if (!isScope(scope)) return [];
    assertDate(retiredSince, 'retiredSince');
    const rows = await this.db.query<SigningKeyRow>(
      `SELECT ${COLUMNS} FROM signing_keys
       WHERE project_id = $1 AND environment = $2 AND (retired_at IS NULL OR retired_at >= $3)
       ORDER BY created_at DESC, kid DESC`,
      [scope.projectId, scope.environment, dateParam(retiredSince)],
    );
    return rows.map(toRecord);
  }

  async findByKid(scope: TenantScope, kid: string): Promise<SigningKeyRecord | null> {
    if (!isScope(scope) || !isText(kid)) return null;
    const rows = await this.db.query<SigningKeyRow>(`SELECT ${COLUMNS} FROM signing_keys WHERE project_id = $1 AND environment = $2 AND kid = $3`, [scope.projectId, scope.environment, kid]);
    return rows.length ? toRecord(rows[0]) : null;
  }
}

function toRecord(row: SigningKeyRow): SigningKeyRecord {
  return {
    kid: row.kid,
    projectId: row.project_id,
    environment: row.environment as Environment,
    publicKeyPem: row.public_key_pem,
    encryptedPrivateKey: row.encrypted_private_key,
    createdAt: readDate(row.created_at),
    retiredAt: readNullableDate(row.retired_at),
  };
}
