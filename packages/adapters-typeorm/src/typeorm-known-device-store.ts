import type { KnownDeviceStore, TenantScope } from '@svc/core';
import type { Database, Sql } from './database';
import { assertLimit } from './bounded-delete';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam } from './row-values';
import { sectionLock } from './sql';

const UPSERT = 'INSERT INTO known_devices (project_id, environment, user_id, fingerprint, first_seen_at, last_seen_at)';
const ON_CONFLICT = `ON CONFLICT (project_id, environment, user_id, fingerprint) DO UPDATE SET last_seen_at =
  CASE WHEN excluded.last_seen_at > known_devices.last_seen_at THEN excluded.last_seen_at ELSE known_devices.last_seen_at END`;

/**
 * PostgreSQL: the per-user lock ($6, the section `Database.transaction` would lock: sectionLock)
 * and every fingerprint ($4, text[]) in one statement. No row comes out of the join before
 * the lock's one-row subquery has been evaluated, so no row is written before the lock is held;
 * held to the transaction's end, it covers the trim too.
 */
const LOCKED_UPSERT = `${UPSERT}
  SELECT $1::uuid, $2::text, $3::uuid, f.fingerprint, $5::timestamptz, $5::timestamptz
    FROM (SELECT ${sectionLock('$6')}) AS locked, unnest($4::text[]) AS f (fingerprint)
  ${ON_CONFLICT}`;

/** KnownDeviceStore on PostgreSQL or SQLite. */
export class TypeormKnownDeviceStore implements KnownDeviceStore {
  constructor(private readonly db: Database) {}

  /**
   * Upserts each fingerprint (last seen only moves forward), then deletes the user's entries
   * beyond the `keep` most recently seen, in one transaction under a per-user lock, so concurrent
   * sign-ins of one user neither deadlock on each other's rows nor trim to fewer than `keep`.
   * On PostgreSQL the lock is taken by the upsert's own statement, one round trip for both
   * (LOCKED_UPSERT); a sign-in waits for this transaction beside its own.
   */
  async remember(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { at: Date; keep: number }): Promise<void> {
    assertScope(scope);
    assertUuid(userId, 'user id');
    assertDate(options.at, 'at');
    fingerprints.forEach((fingerprint) => assertText(fingerprint, 'fingerprint'));
    if (!Number.isInteger(options.keep) || options.keep < 0) throw new RangeError('keep must be a non-negative integer');
    const at = dateParam(options.at);
    const tenant = [scope.projectId, scope.environment, userId];
    const distinct = [...new Set(fingerprints)];
    const lock = `known-devices:${scope.projectId}:${scope.environment}:${userId}`;
    const trim = (tx: Sql) =>
      tx.query(
        `DELETE FROM known_devices WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND fingerprint NOT IN (
           SELECT fingerprint FROM known_devices WHERE project_id = $1 AND environment = $2 AND user_id = $3
           ORDER BY last_seen_at DESC, fingerprint LIMIT $4)`,
        [...tenant, options.keep],
      );
    if (this.db.kind === 'postgres' && distinct.length > 0) {
      await this.db.transaction(async (tx) => {
        await tx.query(LOCKED_UPSERT, [...tenant, distinct, at, lock]);
        await trim(tx);
      });
      return;
    }
    await this.db.transaction(
      async (tx) => {
        for (const fingerprint of distinct) await tx.query(`${UPSERT} VALUES ($1, $2, $3, $4, $5, $5) ${ON_CONFLICT}`, [...tenant, fingerprint, at]);
        await trim(tx);
      },
      { lock },
    );
  }

  async isKnown(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { seenSince: Date }): Promise<boolean> {
    assertDate(options.seenSince, 'seenSince');
    const wanted = fingerprints.filter(isText);
    if (!isScope(scope) || !isUuid(userId) || wanted.length === 0) return false;
    const placeholders = wanted.map((_, i) => `$${i + 5}`).join(', ');
    const rows = await this.db.query(
      `SELECT 1 AS known FROM known_devices
       WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND last_seen_at >= $4 AND fingerprint IN (${placeholders}) LIMIT 1`,
      [scope.projectId, scope.environment, userId, dateParam(options.seenSince), ...wanted],
    );
    return rows.length > 0;
  }

  async forgetUser(scope: TenantScope, userId: string): Promise<void> {
    if (!isScope(scope) || !isUuid(userId)) return;
    await this.db.query('DELETE FROM known_devices WHERE project_id = $1 AND environment = $2 AND user_id = $3', [scope.projectId, scope.environment, userId]);
  }

  /** By primary key from a bounded sub-select (row values: both databases take them), oldest first. */
  async deleteSeenBefore(cutoff: Date, limit: number): Promise<number> {
    assertDate(cutoff, 'cutoff');
    assertLimit(limit);
    const columns = 'project_id, environment, user_id, fingerprint';
    const rows = await this.db.query(
      `DELETE FROM known_devices WHERE (${columns}) IN (
         SELECT ${columns} FROM known_devices WHERE last_seen_at < $1 LIMIT $2) RETURNING fingerprint`,
      [dateParam(cutoff), limit],
    );
    return rows.length;
  }
}
