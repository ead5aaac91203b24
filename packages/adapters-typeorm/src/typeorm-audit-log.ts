import type { Actor, AuditDayCount, AuditEntry, AuditLog, AuditLogQuery, SecurityEventType, TenantScope, WebhookMessage } from '@svc/core';
import type { Database, Sql } from './database';
import { deleteBounded } from './bounded-delete';
import { assertDate, assertScope, assertUuid, isScope, isUuid } from './guards';
import type { AuditLogRow } from './rows';
import { dateParam, jsonParam, readCount, readDate, readJson } from './row-values';
import { insertWebhookMessages } from './typeorm-webhook-store';
import { prepared } from './prepared';

const COLUMNS = 'id, type, at, user_id, actor, client_address, user_agent, request_id, data, expires_at';
const INSERT_ENTRY = prepared(`INSERT INTO audit_log (project_id, environment, ${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`);

/** AuditLog on PostgreSQL or SQLite: inserts and reads only; the janitor's delete by expiry. */
export class TypeormAuditLog implements AuditLog {
  constructor(private readonly db: Database) {}

  /** The entry and its deliveries in one transaction. */
  async append(scope: TenantScope, entry: AuditEntry, options: { deliveries?: WebhookMessage[] } = {}): Promise<void> {
    assertScope(scope);
    assertUuid(entry.id, 'audit entry id');
    assertDate(entry.at, 'at');
    assertDate(entry.expiresAt, 'expiresAt');
    if (entry.userId !== null) assertUuid(entry.userId, 'user id');
    const deliveries = options.deliveries ?? [];
    if (deliveries.length === 0) return this.insert(this.db, scope, entry);
    await this.db.transaction(async (tx) => {
      await this.insert(tx, scope, entry);
      await insertWebhookMessages(tx, scope, deliveries);
    });
  }

  private async insert(sql: Sql, scope: TenantScope, entry: AuditEntry): Promise<void> {
    await sql.query(INSERT_ENTRY, [
      scope.projectId,
      scope.environment,
      entry.id,
      entry.type,
      dateParam(entry.at),
      entry.userId,
      jsonParam(entry.actor),
      entry.clientAddress,
      entry.userAgent,
      entry.requestId,
      jsonParam(entry.data),
      dateParam(entry.expiresAt),
    ]);
  }

  async list(scope: TenantScope, query: AuditLogQuery): Promise<AuditEntry[]> {
    if (!isScope(scope)) return [];
    if (query.userId !== undefined && !isUuid(query.userId)) return [];
    const params: unknown[] = [scope.projectId, scope.environment];
    const where = ['project_id = $1', 'environment = $2'];
    const add = (clause: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(clause(params.length));
    };
    if (query.type !== undefined) add((n) => `type = $${n}`, query.type);
    if (query.userId !== undefined) add((n) => `user_id = $${n}`, query.userId);
    if (query.from !== undefined) add((n) => `at >= $${n}`, dateParam(query.from));
    if (query.to !== undefined) add((n) => `at < $${n}`, dateParam(query.to));
    if (query.before !== undefined) {
      if (!isUuid(query.before.id)) return [];
      params.push(dateParam(query.before.at), query.before.id);
      const [atN, idN] = [params.length - 1, params.length];
      where.push(`(at < $${atN} OR (at = $${atN} AND id < $${idN}))`);
    }
    params.push(query.limit);
    const rows = await this.db.query<AuditLogRow>(`SELECT ${COLUMNS} FROM audit_log WHERE ${where.join(' AND ')} ORDER BY at DESC, id DESC LIMIT $${params.length}`, params);
    return rows.map(toEntry);
  }

  /**
   * One grouped count over the (project_id, environment, type, at) index. The UTC day is the
   * first ten characters of the stored ISO text on SQLite, `to_char` in UTC on PostgreSQL.
   */
  async countPerDay(scope: TenantScope, query: { types: readonly SecurityEventType[]; from: Date; to: Date }): Promise<AuditDayCount[]> {
    if (!isScope(scope) || query.types.length === 0) return [];
    const day = this.db.kind === 'postgres' ? "to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD')" : 'substr(at, 1, 10)';
    const types = query.types.map((_, i) => `$${i + 5}`).join(', ');
    const rows = await this.db.query<{ day: string; type: string; n: unknown }>(
      `SELECT ${day} AS day, type, count(*) AS n FROM audit_log
       WHERE project_id = $1 AND environment = $2 AND at >= $3 AND at < $4 AND type IN (${types})
       GROUP BY 1, 2`,
      [scope.projectId, scope.environment, dateParam(query.from), dateParam(query.to), ...query.types],
    );
    return rows.map((row) => ({ day: row.day, type: row.type as SecurityEventType, count: readCount(row.n) }));
  }

  async deleteExpired(now: Date, limit: number): Promise<number> {
    assertDate(now, 'now');
    const rows = await deleteBounded(this.db, { table: 'audit_log', key: 'id', where: 'expires_at <= $1', returning: 'id' }, [dateParam(now)], limit);
    return rows.length;
  }
}

function toEntry(row: AuditLogRow): AuditEntry {
  return {
    id: row.id,
    type: row.type as SecurityEventType,
    at: readDate(row.at),
    userId: row.user_id,
    actor: readJson<Actor>(row.actor),
    clientAddress: row.client_address,
    userAgent: row.user_agent,
    requestId: row.request_id,
    data: readJson<Record<string, unknown>>(row.data),
    expiresAt: readDate(row.expires_at),
  };
}
