import type { Passkey, PasskeyStore, TenantScope } from '@svc/core';
import type { Database } from './database';
import type { PasskeyRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, jsonParam, readDate, readJson, readNullableDate } from './row-values';

const COLUMNS = 'id, user_id, credential_id, public_key, counter, transports, name, created_at, last_used_at';
const MAX_COUNTER = 0xffffffff;

/** PasskeyStore on PostgreSQL or SQLite; the counter moves by one conditional UPDATE. */
export class TypeormPasskeyStore implements PasskeyStore {
  constructor(private readonly db: Database) {}

  /** ON CONFLICT DO NOTHING on the scope's unique credential id: a duplicate inserts nothing, atomically. */
  async add(scope: TenantScope, passkey: Passkey): Promise<'created' | 'exists'> {
    assertScope(scope);
    assertUuid(passkey.id, 'passkey id');
    assertUuid(passkey.userId, 'user id');
    assertText(passkey.credentialId, 'credential id');
    assertText(passkey.publicKey, 'public key');
    assertDate(passkey.createdAt, 'createdAt');
    assertCounter(passkey.counter);
    const rows = await this.db.query(
      `INSERT INTO passkeys (id, project_id, environment, user_id, credential_id, public_key, counter, transports, name, created_at, last_used_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (project_id, environment, credential_id) DO NOTHING RETURNING id`,
      [
        passkey.id,
        scope.projectId,
        scope.environment,
        passkey.userId,
        passkey.credentialId,
        passkey.publicKey,
        passkey.counter,
        jsonParam(passkey.transports),
        passkey.name,
        dateParam(passkey.createdAt),
        passkey.lastUsedAt === null ? null : dateParam(passkey.lastUsedAt),
      ],
    );
    return rows.length === 1 ? 'created' : 'exists';
  }

  async findByCredentialId(scope: TenantScope, credentialId: string): Promise<Passkey | null> {
    if (!isScope(scope) || !isText(credentialId)) return null;
    const rows = await this.db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE project_id = $1 AND environment = $2 AND credential_id = $3`, [
      scope.projectId,
      scope.environment,
      credentialId,
    ]);
    return rows.length ? toPasskey(rows[0]) : null;
  }

  async listForUser(scope: TenantScope, userId: string): Promise<Passkey[]> {
    if (!isScope(scope) || !isUuid(userId)) return [];
    const rows = await this.db.query<PasskeyRow>(`SELECT ${COLUMNS} FROM passkeys WHERE project_id = $1 AND environment = $2 AND user_id = $3 ORDER BY created_at, id`, [
      scope.projectId,
      scope.environment,
      userId,
    ]);
    return rows.map(toPasskey);
  }

  /** WebAuthn's counter rule as the UPDATE's condition, so the check and the write cannot be split. */
  async recordUse(scope: TenantScope, credentialId: string, use: { counter: number; at: Date }): Promise<boolean> {
    if (!isScope(scope) || !isText(credentialId)) return false;
    assertCounter(use.counter);
    assertDate(use.at, 'at');
    const rows = await this.db.query(
      `UPDATE passkeys SET counter = $4, last_used_at = $5
       WHERE project_id = $1 AND environment = $2 AND credential_id = $3
         AND (counter < $4 OR (counter = 0 AND $4 = 0)) RETURNING id`,
      [scope.projectId, scope.environment, credentialId, use.counter, dateParam(use.at)],
    );
    return rows.length === 1;
  }

  async remove(scope: TenantScope, userId: string, id: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(userId) || !isUuid(id)) return false;
    const rows = await this.db.query('DELETE FROM passkeys WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND id = $4 RETURNING id', [scope.projectId, scope.environment, userId, id]);
    return rows.length === 1;
  }
}

function assertCounter(counter: number): void {
  if (!Number.isInteger(counter) || counter < 0 || counter > MAX_COUNTER) throw new TypeError('counter must be an unsigned 32-bit integer');
}

function toPasskey(row: PasskeyRow): Passkey {
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: readJson<string[]>(row.transports),
    name: row.name,
    createdAt: readDate(row.created_at),
    lastUsedAt: readNullableDate(row.last_used_at),
  };
}
