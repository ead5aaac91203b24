import { ONE_TIME_PURPOSES, type NewOneTimeToken, type OneTimePurpose, type OneTimeToken, type OneTimeTokenStore, type TenantScope } from '@svc/core';
import { deleteBounded } from './bounded-delete';
import type { Database, Sql } from './database';
import type { OneTimeTokenRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, jsonParam, readDate, readJson, readNullableDate } from './row-values';

const COLUMNS = 'token_hash, purpose, user_id, data, created_at, expires_at, consumed_at, failed_attempts';
/** $1 project, $2 environment, $3 purpose, $4 hash: the token in its scope, of its purpose. */
const IN_SCOPE = 'project_id = $1 AND environment = $2 AND purpose = $3 AND token_hash = $4';

const isPurpose = (value: unknown): value is OneTimePurpose => (ONE_TIME_PURPOSES as readonly unknown[]).includes(value);

/**
 * Stores a token inside the caller's transaction `tx`; the outbox uses it to write a link's token
 * and its mail together. With `supersede`, the user's open tokens of the purpose are consumed
 * first, in the same transaction. A duplicate hash violates the primary key and rejects.
 */
export async function insertOneTimeToken(tx: Sql, scope: TenantScope, token: NewOneTimeToken, supersede: boolean): Promise<void> {
  assertScope(scope);
  assertOneTimeToken(token);
  const { projectId, environment } = scope;
  if (supersede && token.userId !== null) {
    await tx.query(
      `UPDATE one_time_tokens SET consumed_at = $5
       WHERE project_id = $1 AND environment = $2 AND purpose = $3 AND user_id = $4 AND consumed_at IS NULL`,
      [projectId, environment, token.purpose, token.userId, dateParam(token.createdAt)],
    );
  }
  await tx.query(
    `INSERT INTO one_time_tokens (token_hash, project_id, environment, purpose, user_id, data, created_at, expires_at, consumed_at, failed_attempts)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL, 0)`,
    [token.tokenHash, projectId, environment, token.purpose, token.userId, jsonParam(token.data ?? {}), dateParam(token.createdAt), dateParam(token.expiresAt)],
  );
}

/** Rejects a token that could not be stored (unknown purpose, malformed ids or dates). */
export function assertOneTimeToken(token: NewOneTimeToken): void {
  assertText(token.tokenHash, 'token hash');
  if (!isPurpose(token.purpose)) throw new TypeError('unknown one-time token purpose');
  if (token.userId !== null) assertUuid(token.userId, 'user id');
  assertDate(token.createdAt, 'createdAt');
  assertDate(token.expiresAt, 'expiresAt');
}

/** OneTimeTokenStore on PostgreSQL or SQLite; every single-use step is one conditional UPDATE. */
export class TypeormOneTimeTokenStore implements OneTimeTokenStore {
  constructor(private readonly db: Database) {}

  async issue(scope: TenantScope, token: NewOneTimeToken, options: { supersede?: boolean } = {}): Promise<void> {
    await this.db.transaction((tx) => insertOneTimeToken(tx, scope, token, options.supersede === true));
  }

  /**
   * One `UPDATE ... WHERE consumed_at IS NULL AND expires_at > now RETURNING`: on PostgreSQL
   * concurrent consumers queue on the row lock and re-check the condition against the winner's
   * committed row, so exactly one gets the row back; SQLite runs the statements one at a time.
   */
  async consume(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, now: Date): Promise<OneTimeToken | null> {
    if (!isScope(scope) || !isPurpose(purpose) || !isText(tokenHash)) return null;
    assertDate(now, 'now');
    const rows = await this.db.query<OneTimeTokenRow>(
      `UPDATE one_time_tokens SET consumed_at = $5
       WHERE ${IN_SCOPE} AND consumed_at IS NULL AND expires_at > $5 RETURNING ${COLUMNS}`,
      [scope.projectId, scope.environment, purpose, tokenHash, dateParam(now)],
    );
    // Answered as it was before this consume (the port's contract): it was open.
    return rows.length ? { ...toToken(rows[0]), consumedAt: null } : null;
  }

  /** Through one_time_tokens_user_idx (open tokens by user and purpose). */
  async findOpenForUser(scope: TenantScope, purpose: OneTimePurpose, userId: string, now: Date): Promise<OneTimeToken | null> {
    if (!isScope(scope) || !isPurpose(purpose) || !isUuid(userId)) return null;
    assertDate(now, 'now');
    const rows = await this.db.query<OneTimeTokenRow>(
      `SELECT ${COLUMNS} FROM one_time_tokens
       WHERE project_id = $1 AND environment = $2 AND purpose = $3 AND user_id = $4 AND consumed_at IS NULL AND expires_at > $5
       ORDER BY created_at DESC LIMIT 1`,
      [scope.projectId, scope.environment, purpose, userId, dateParam(now)],
    );
    return rows.length ? toToken(rows[0]) : null;
  }

  async find(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string): Promise<OneTimeToken | null> {
    if (!isScope(scope) || !isPurpose(purpose) || !isText(tokenHash)) return null;
    const rows = await this.db.query<OneTimeTokenRow>(`SELECT ${COLUMNS} FROM one_time_tokens WHERE ${IN_SCOPE}`, [scope.projectId, scope.environment, purpose, tokenHash]);
    return rows.length ? toToken(rows[0]) : null;
  }

  /** One UPDATE counts the attempt and, at the limit, consumes the token in the same step. */
  async recordFailedAttempt(scope: TenantScope, purpose: OneTimePurpose, tokenHash: string, options: { maxAttempts: number; now: Date }): Promise<number> {
    if (!isScope(scope) || !isPurpose(purpose) || !isText(tokenHash)) return 0;
    assertDate(options.now, 'now');
    if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1) throw new RangeError('maxAttempts must be a positive integer');
    const rows = await this.db.query<{ failed_attempts: number | string }>(
      `UPDATE one_time_tokens
       SET failed_attempts = failed_attempts + 1,
           consumed_at = CASE WHEN failed_attempts + 1 >= $6 THEN $5 ELSE NULL END
       WHERE ${IN_SCOPE} AND consumed_at IS NULL AND expires_at > $5 RETURNING failed_attempts`,
      [scope.projectId, scope.environment, purpose, tokenHash, dateParam(options.now), options.maxAttempts],
    );
    return rows.length ? Math.max(0, options.maxAttempts - Number(rows[0].failed_attempts)) : 0;
  }

  async revokeForUser(scope: TenantScope, userId: string, purposes: OneTimePurpose[], at: Date): Promise<number> {
    if (!isScope(scope) || !isUuid(userId)) return 0;
    assertDate(at, 'at');
    const known = purposes.filter(isPurpose);
    if (known.length === 0) return 0;
    const list = known.map((_, i) => `$${i + 5}`).join(', ');
    const rows = await this.db.query(
      `UPDATE one_time_tokens SET consumed_at = $4
       WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND consumed_at IS NULL AND purpose IN (${list})
       RETURNING token_hash`,
      [scope.projectId, scope.environment, userId, dateParam(at), ...known],
    );
    return rows.length;
  }

  /** Bounded delete through `one_time_tokens_expiry_idx`. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    assertDate(now, 'now');
    const spec = { table: 'one_time_tokens', key: 'token_hash', where: 'expires_at <= $1', returning: 'token_hash' };
    return (await deleteBounded(this.db, spec, [dateParam(now)], limit)).length;
  }
}

function toToken(row: OneTimeTokenRow): OneTimeToken {
  return {
    tokenHash: row.token_hash,
    purpose: row.purpose as OneTimePurpose,
    userId: row.user_id,
    data: readJson<Record<string, unknown>>(row.data),
    createdAt: readDate(row.created_at),
    expiresAt: readDate(row.expires_at),
    consumedAt: readNullableDate(row.consumed_at),
    failedAttempts: Number(row.failed_attempts),
  };
}
