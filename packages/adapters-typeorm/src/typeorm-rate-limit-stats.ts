import type { RateLimitedHour, RateLimitStats, TenantScope } from '@svc/core';
import type { Database } from './database';
import { assertDate, assertScope, isScope } from './guards';
import { dateParam, readCount, readDate } from './row-values';

/**
 * RateLimitStats on PostgreSQL or SQLite: one row per environment and hour, incremented by an
 * upsert (`ON CONFLICT ... DO UPDATE SET refused = refused + excluded.refused`), which both
 * databases run atomically, so instances flushing at once all count.
 */
export class TypeormRateLimitStats implements RateLimitStats {
  constructor(private readonly db: Database) {}

  async add(scope: TenantScope, hour: Date, count: number): Promise<void> {
    assertScope(scope);
    assertDate(hour, 'hour');
    if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
    await this.db.query(
      `INSERT INTO rate_limited_hours (project_id, environment, hour, refused) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, environment, hour) DO UPDATE SET refused = rate_limited_hours.refused + excluded.refused`,
      [scope.projectId, scope.environment, dateParam(hour), count],
    );
  }

  /** By the primary key: the scope's hours in the range. */
  async listHours(scope: TenantScope, range: { from: Date; to: Date }): Promise<RateLimitedHour[]> {
    if (!isScope(scope)) return [];
    const rows = await this.db.query<{ hour: unknown; refused: unknown }>(
      'SELECT hour, refused FROM rate_limited_hours WHERE project_id = $1 AND environment = $2 AND hour >= $3 AND hour < $4 ORDER BY hour',
      [scope.projectId, scope.environment, dateParam(range.from), dateParam(range.to)],
    );
    return rows.map((row) => ({ hour: readDate(row.hour), count: readCount(row.refused) }));
  }

  /** One bounded statement per batch; the key is the (project_id, environment, hour) row value. */
  async deleteBefore(before: Date, limit: number): Promise<number> {
    assertDate(before, 'before');
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    const rows = await this.db.query(
      `DELETE FROM rate_limited_hours WHERE (project_id, environment, hour) IN
         (SELECT project_id, environment, hour FROM rate_limited_hours WHERE hour < $1 LIMIT $2)
       RETURNING hour`,
      [dateParam(before), limit],
    );
    return rows.length;
  }
}
