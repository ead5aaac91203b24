import type { KnownDeviceStore, TenantScope } from '@svc/core';
import type { Database } from './database';
import { assertLimit } from './bounded-delete';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam } from './row-values';

/** KnownDeviceStore on PostgreSQL or SQLite. */
export class TypeormKnownDeviceStore implements KnownDeviceStore {
  constructor(private readonly db: Database) {}

  /**
   * Upserts each fingerprint (last seen only moves forward), then deletes the user's entries
   * beyond the `keep` most recently seen, in one transaction under a per-user lock, so concurrent
   * sign-ins of one user neither deadlock on each other's rows nor trim to fewer than `keep`.
   */
  async remember(scope: TenantScope, userId: string, fingerprints: readonly string[], options: { at: Date; keep: number }): Promise<void> {
    assertScope(scope);
    assertUuid(userId, 'user id');
    assertDate(options.at, 'at');
    fingerprints.forEach((fingerprint) => assertText(fingerprint, 'fingerprint'));
    if (!Number.isInteger(options.keep) || options.keep < 0) throw new RangeError('keep must be a non-negative integer');
    const at = dateParam(options.at);
    const tenant = [scope.projectId, scope.environment, userId];
    await this.db.transaction(
      async (tx) => {
        for (const fingerprint of new Set(fingerprints)) {
          await tx.query(
            `INSERT INTO known_devices (project_id, environment, user_id, fingerprint, first_seen_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $5, $5)
             ON CONFLICT (project_id, environment, user_id, fingerprint) DO UPDATE SET last_seen_at =
               CASE WHEN excluded.last_seen_at > known_devices.last_seen_at THEN excluded.last_seen_at ELSE known_devices.last_seen_at END`,
            [...tenant, fingerprint, at],
          );
        }
        await tx.query(
          `DELETE FROM known_devices WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND fingerprint NOT IN (
             SELECT fingerprint FROM known_devices WHERE project_id = $1 AND environment = $2 AND user_id = $3
             ORDER BY last_seen_at DESC, fingerprint LIMIT $4)`,
          [...tenant, options.keep],
        );
      },
      { lock: `known-devices:${scope.projectId}:${scope.environment}:${userId}` },
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
