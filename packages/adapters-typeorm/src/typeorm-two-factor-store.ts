import type { TenantScope, TotpEnrollment, TwoFactorStore } from '@svc/core';
import type { Database } from './database';
import type { TotpEnrollmentRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, readDate, readNullableDate } from './row-values';
import { prepared } from './prepared';

/** $1 project, $2 environment, $3 user: one user's rows in its scope. */
const USER_IN_SCOPE = 'project_id = $1 AND environment = $2 AND user_id = $3';

/** Every sign-in with a password reads it. */
const FIND_TOTP = prepared(`SELECT user_id, sealed_secret, status, last_used_step, created_at, enabled_at FROM totp_enrollments WHERE ${USER_IN_SCOPE}`);

/** TwoFactorStore on PostgreSQL or SQLite; every code-accepting step is one conditional UPDATE. */
export class TypeormTwoFactorStore implements TwoFactorStore {
  constructor(private readonly db: Database) {}

  async findTotp(scope: TenantScope, userId: string): Promise<TotpEnrollment | null> {
    if (!isScope(scope) || !isUuid(userId)) return null;
    const rows = await this.db.query<TotpEnrollmentRow>(FIND_TOTP, [scope.projectId, scope.environment, userId]);
    return rows.length ? toEnrollment(rows[0]) : null;
  }

  /** One upsert whose update branch applies only to a pending row: an enabled one is left alone. */
  async beginTotp(scope: TenantScope, userId: string, setup: { sealedSecret: string; createdAt: Date }): Promise<boolean> {
    assertScope(scope);
    assertUuid(userId, 'user id');
    assertText(setup.sealedSecret, 'sealed secret');
    assertDate(setup.createdAt, 'createdAt');
    const rows = await this.db.query(
      `INSERT INTO totp_enrollments (project_id, environment, user_id, sealed_secret, status, last_used_step, created_at, enabled_at)
       VALUES ($1, $2, $3, $4, 'pending', NULL, $5, NULL)
       ON CONFLICT (project_id, environment, user_id) DO UPDATE
         SET sealed_secret = excluded.sealed_secret, created_at = excluded.created_at
         WHERE totp_enrollments.status = 'pending'
       RETURNING user_id`,
      [scope.projectId, scope.environment, userId, setup.sealedSecret, dateParam(setup.createdAt)],
    );
    return rows.length === 1;
  }

  /**
   * The switch is a conditional UPDATE on (pending, this secret); only its winner replaces the
   * recovery codes, in the same transaction, so a lost race changes nothing.
   */
  async enableTotp(scope: TenantScope, userId: string, enable: { sealedSecret: string; usedStep: number; recoveryCodeHashes: string[]; enabledAt: Date }): Promise<boolean> {
    if (!isScope(scope) || !isUuid(userId) || !isText(enable.sealedSecret)) return false;
    assertDate(enable.enabledAt, 'enabledAt');
    if (!Number.isSafeInteger(enable.usedStep)) throw new TypeError('usedStep must be an integer');
    enable.recoveryCodeHashes.forEach((hash) => assertText(hash, 'recovery code hash'));
    const params = [scope.projectId, scope.environment, userId];
    return this.db.transaction(async (tx) => {
      const switched = await tx.query(
        `UPDATE totp_enrollments SET status = 'enabled', last_used_step = $5, enabled_at = $6
         WHERE ${USER_IN_SCOPE} AND status = 'pending' AND sealed_secret = $4 RETURNING user_id`,
        [...params, enable.sealedSecret, enable.usedStep, dateParam(enable.enabledAt)],
      );
      if (switched.length !== 1) return false;
      await tx.query(`DELETE FROM totp_recovery_codes WHERE ${USER_IN_SCOPE}`, params);
      for (const hash of enable.recoveryCodeHashes) {
        await tx.query('INSERT INTO totp_recovery_codes (project_id, environment, user_id, code_hash, used_at) VALUES ($1, $2, $3, $4, NULL)', [...params, hash]);
      }
      return true;
    });
  }

  /** Compare-and-set in one UPDATE: concurrent callers re-check `last_used_step < $4` after the winner commits. */
  async useTotpStep(scope: TenantScope, userId: string, step: number): Promise<boolean> {
    if (!isScope(scope) || !isUuid(userId) || !Number.isSafeInteger(step)) return false;
    const rows = await this.db.query(
      `UPDATE totp_enrollments SET last_used_step = $4
       WHERE ${USER_IN_SCOPE} AND status = 'enabled' AND (last_used_step IS NULL OR last_used_step < $4)
       RETURNING user_id`,
      [scope.projectId, scope.environment, userId, step],
    );
    return rows.length === 1;
  }

  async useRecoveryCode(scope: TenantScope, userId: string, codeHash: string, at: Date): Promise<boolean> {
    if (!isScope(scope) || !isUuid(userId) || !isText(codeHash)) return false;
    assertDate(at, 'at');
    const rows = await this.db.query(
      `UPDATE totp_recovery_codes SET used_at = $5
       WHERE ${USER_IN_SCOPE} AND code_hash = $4 AND used_at IS NULL RETURNING code_hash`,
      [scope.projectId, scope.environment, userId, codeHash, dateParam(at)],
    );
    return rows.length === 1;
  }

  async countRecoveryCodes(scope: TenantScope, userId: string): Promise<number> {
    if (!isScope(scope) || !isUuid(userId)) return 0;
    const rows = await this.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM totp_recovery_codes WHERE ${USER_IN_SCOPE} AND used_at IS NULL`, [scope.projectId, scope.environment, userId]);
    return Number(rows[0].n);
  }

  /** The recovery codes go with it (foreign key ON DELETE CASCADE). */
  async removeTotp(scope: TenantScope, userId: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(userId)) return false;
    const rows = await this.db.query(`DELETE FROM totp_enrollments WHERE ${USER_IN_SCOPE} RETURNING user_id`, [scope.projectId, scope.environment, userId]);
    return rows.length === 1;
  }
}

function toEnrollment(row: TotpEnrollmentRow): TotpEnrollment {
  return {
    userId: row.user_id,
    sealedSecret: row.sealed_secret,
    status: row.status === 'enabled' ? 'enabled' : 'pending',
    lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
    createdAt: readDate(row.created_at),
    enabledAt: readNullableDate(row.enabled_at),
  };
}
