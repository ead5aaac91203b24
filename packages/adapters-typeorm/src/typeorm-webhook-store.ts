import type {
  ClaimedWebhookMessage,
  Environment,
  HeldClaim,
  SecurityEventType,
  TenantScope,
  WebhookAttempt,
  WebhookEndpoint,
  WebhookEndpointChanges,
  WebhookMessage,
  WebhookMessageStatus,
  WebhookOutcome,
  WebhookStore,
} from '@svc/core';
import type { Database, Sql } from './database';
import { assertLimit, deleteBounded } from './bounded-delete';
import { claimLeased, releaseLeased } from './lease-claim';
import { assertDate, assertScope, assertText, assertUuid, isScope, isUuid } from './guards';
import type { WebhookAttemptRow, WebhookEndpointRow, WebhookMessageRow } from './rows';
import { dateParam, jsonParam, nullableDateParam, readBoolean, readCount, readDate, readJson, readNullableDate } from './row-values';
import { prepared } from './prepared';

const ENDPOINT_COLUMNS = `id, url, event_types, enabled, disabled_reason, sealed_secret, sealed_previous_secret,
  previous_secret_expires_at, created_at, updated_at`;

/** A scope's endpoints: every recorded event reads them (createEventRecorder). */
const LIST_ENDPOINTS = prepared(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE project_id = $1 AND environment = $2 ORDER BY created_at, id`);
const MESSAGE_COLUMN_NAMES = [
  'id',
  'project_id',
  'environment',
  'endpoint_id',
  'event_type',
  'payload',
  'status',
  'attempts',
  'next_attempt_at',
  'lease_until',
  'last_status_code',
  'last_error',
  'created_at',
  'delivered_at',
];
const MESSAGE_COLUMNS = MESSAGE_COLUMN_NAMES.join(', ');

/** The endpoint fields an update may set, with their columns; updates iterate over this, never over input keys. */
const CHANGE_COLUMNS: { [K in keyof Required<WebhookEndpointChanges>]: { column: string; kind?: 'json' | 'date' } } = {
  url: { column: 'url' },
  eventTypes: { column: 'event_types', kind: 'json' },
  enabled: { column: 'enabled' },
  disabledReason: { column: 'disabled_reason' },
  sealedSecret: { column: 'sealed_secret' },
  sealedPreviousSecret: { column: 'sealed_previous_secret' },
  previousSecretExpiresAt: { column: 'previous_secret_expires_at', kind: 'date' },
};

/** WebhookStore on PostgreSQL or SQLite: endpoints, the delivery queue (claimed as mail_outbox is) and the log. */
export class TypeormWebhookStore implements WebhookStore {
  constructor(private readonly db: Database) {}

  async createEndpoint(scope: TenantScope, endpoint: WebhookEndpoint): Promise<void> {
    assertScope(scope);
    assertUuid(endpoint.id, 'endpoint id');
    assertText(endpoint.url, 'url');
    await this.db.query(`INSERT INTO webhook_endpoints (project_id, environment, ${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
      scope.projectId,
      scope.environment,
      endpoint.id,
      endpoint.url,
      jsonParam(endpoint.eventTypes),
      endpoint.enabled,
      endpoint.disabledReason,
      endpoint.sealedSecret,
      endpoint.sealedPreviousSecret,
      nullableDateParam(endpoint.previousSecretExpiresAt),
      dateParam(endpoint.createdAt),
      dateParam(endpoint.updatedAt),
    ]);
  }

  async listEndpoints(scope: TenantScope): Promise<WebhookEndpoint[]> {
    if (!isScope(scope)) return [];
    const rows = await this.db.query<WebhookEndpointRow>(LIST_ENDPOINTS, [scope.projectId, scope.environment]);
    return rows.map(toEndpoint);
  }

  async findEndpoint(scope: TenantScope, id: string): Promise<WebhookEndpoint | null> {
    if (!isScope(scope) || !isUuid(id)) return null;
    const rows = await this.db.query<WebhookEndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE project_id = $1 AND environment = $2 AND id = $3`, [
      scope.projectId,
      scope.environment,
      id,
    ]);
    return rows.length ? toEndpoint(rows[0]) : null;
  }

  async updateEndpoint(scope: TenantScope, id: string, changes: WebhookEndpointChanges, updatedAt: Date): Promise<WebhookEndpoint | null> {
    if (!isScope(scope) || !isUuid(id)) return null;
    assertDate(updatedAt, 'updatedAt');
    const params: unknown[] = [scope.projectId, scope.environment, id, dateParam(updatedAt)];
    const sets = ['updated_at = $4'];
    for (const [key, target] of Object.entries(CHANGE_COLUMNS) as [keyof WebhookEndpointChanges, { column: string; kind?: 'json' | 'date' }][]) {
      const value = changes[key];
      if (value === undefined) continue;
      params.push(target.kind === 'json' ? jsonParam(value) : target.kind === 'date' ? nullableDateParam(value as Date | null) : value);
      sets.push(`${target.column} = $${params.length}`);
    }
    const rows = await this.db.query<WebhookEndpointRow>(
      `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING ${ENDPOINT_COLUMNS}`,
      params,
    );
    return rows.length ? toEndpoint(rows[0]) : null;
  }

  async deleteEndpoint(scope: TenantScope, id: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    const rows = await this.db.query('DELETE FROM webhook_endpoints WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [scope.projectId, scope.environment, id]);
    return rows.length > 0;
  }

  /** In one transaction: each message names an endpoint of the scope, or none is stored. */
  async enqueue(scope: TenantScope, messages: WebhookMessage[]): Promise<void> {
    assertScope(scope);
    await this.db.transaction((tx) => insertWebhookMessages(tx, scope, messages));
  }

  async claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<ClaimedWebhookMessage[]> {
    const rows = await claimLeased<WebhookMessageRow>(this.db, { table: 'webhook_messages', columns: MESSAGE_COLUMN_NAMES }, now, options);
    return rows
      .map((row) => ({ ...toMessage(row), scope: { projectId: row.project_id, environment: row.environment as Environment } }))
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** The log row and the outcome in one transaction; the outcome only while the message is `sending`. */
  async finishAttempt(scope: TenantScope, attempt: WebhookAttempt, outcome: WebhookOutcome): Promise<void> {
    if (!isScope(scope) || !isUuid(attempt.messageId)) return;
    assertDate(attempt.at, 'at');
    const tenant = [scope.projectId, scope.environment, attempt.messageId];
    await this.db.transaction(async (tx) => {
      const owned = await tx.query('SELECT id FROM webhook_messages WHERE project_id = $1 AND environment = $2 AND id = $3', tenant);
      if (owned.length === 0) return;
      await tx.query('INSERT INTO webhook_attempts (message_id, seq, attempt, at, status_code, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        attempt.messageId,
        globalThis.crypto.randomUUID(),
        attempt.attempt,
        dateParam(attempt.at),
        attempt.statusCode,
        attempt.error,
        Math.max(0, Math.round(attempt.durationMs)),
      ]);
      const params: unknown[] = [...tenant, outcome.status, attempt.statusCode, attempt.error];
      let extra = '';
      if (outcome.status === 'delivered') {
        params.push(dateParam(attempt.at));
        extra = ', delivered_at = $7';
      } else if (outcome.status === 'pending') {
        assertDate(outcome.nextAttemptAt, 'nextAttemptAt');
        params.push(dateParam(outcome.nextAttemptAt));
        extra = ', next_attempt_at = $7';
      }
      await tx.query(
        `UPDATE webhook_messages SET status = $4, last_status_code = $5, last_error = $6, lease_until = NULL${extra}
         WHERE project_id = $1 AND environment = $2 AND id = $3 AND status = 'sending'`,
        params,
      );
    });
  }

  async release(claims: readonly HeldClaim[], dueAt: Date): Promise<void> {
    await releaseLeased(this.db, 'webhook_messages', claims, dueAt);
  }

  async listMessages(scope: TenantScope, query: { endpointId?: string; limit: number }): Promise<WebhookMessage[]> {
    if (!isScope(scope)) return [];
    assertLimit(query.limit);
    const params: unknown[] = [scope.projectId, scope.environment];
    let filter = '';
    if (query.endpointId !== undefined) {
      if (!isUuid(query.endpointId)) return [];
      params.push(query.endpointId);
      filter = ` AND endpoint_id = $${params.length}`;
    }
    params.push(query.limit);
    const rows = await this.db.query<WebhookMessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM webhook_messages WHERE project_id = $1 AND environment = $2${filter} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toMessage);
  }

  async findMessage(scope: TenantScope, id: string): Promise<WebhookMessage | null> {
    if (!isScope(scope) || !isUuid(id)) return null;
    const rows = await this.db.query<WebhookMessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM webhook_messages WHERE project_id = $1 AND environment = $2 AND id = $3`, [
      scope.projectId,
      scope.environment,
      id,
    ]);
    return rows.length ? toMessage(rows[0]) : null;
  }

  async listAttempts(scope: TenantScope, messageId: string): Promise<WebhookAttempt[]> {
    if (!isScope(scope) || !isUuid(messageId)) return [];
    const rows = await this.db.query<WebhookAttemptRow>(
      `SELECT a.message_id, a.attempt, a.at, a.status_code, a.error, a.duration_ms FROM webhook_attempts a
       JOIN webhook_messages m ON m.id = a.message_id
       WHERE m.project_id = $1 AND m.environment = $2 AND a.message_id = $3 ORDER BY a.attempt, a.at`,
      [scope.projectId, scope.environment, messageId],
    );
    return rows.map((row) => ({
      messageId: row.message_id,
      attempt: Number(row.attempt),
      at: readDate(row.at),
      statusCode: row.status_code === null ? null : Number(row.status_code),
      error: row.error,
      durationMs: Number(row.duration_ms),
    }));
  }

  async requeue(scope: TenantScope, messageId: string, now: Date): Promise<boolean> {
    if (!isScope(scope) || !isUuid(messageId)) return false;
    assertDate(now, 'now');
    const rows = await this.db.query(
      `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = $4, lease_until = NULL, delivered_at = NULL
       WHERE project_id = $1 AND environment = $2 AND id = $3 AND status <> 'sending' RETURNING id`,
      [scope.projectId, scope.environment, messageId, dateParam(now)],
    );
    return rows.length > 0;
  }

  async requeueRange(scope: TenantScope, endpointId: string, range: { from: Date; to: Date; limit: number }, now: Date): Promise<number> {
    if (!isScope(scope) || !isUuid(endpointId)) return 0;
    assertDate(range.from, 'from');
    assertDate(range.to, 'to');
    assertDate(now, 'now');
    assertLimit(range.limit);
    const rows = await this.db.query(
      `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = $4, lease_until = NULL, delivered_at = NULL
       WHERE id IN (
         SELECT id FROM webhook_messages WHERE project_id = $1 AND environment = $2 AND endpoint_id = $3
           AND status IN ('delivered', 'dead') AND created_at >= $5 AND created_at < $6 ORDER BY created_at LIMIT $7)
       RETURNING id`,
      [scope.projectId, scope.environment, endpointId, dateParam(now), dateParam(range.from), dateParam(range.to), range.limit],
    );
    return rows.length;
  }

  async stats(now: Date): Promise<{ counts: Record<WebhookMessageStatus, number>; oldestDueAt: Date | null }> {
    const counts: Record<WebhookMessageStatus, number> = { pending: 0, sending: 0, delivered: 0, dead: 0 };
    const rows = await this.db.query<{ status: string; n: unknown }>('SELECT status, count(*) AS n FROM webhook_messages GROUP BY status');
    for (const row of rows) counts[row.status as WebhookMessageStatus] = readCount(row.n);
    const due = await this.db.query<{ due: unknown }>("SELECT next_attempt_at AS due FROM webhook_messages WHERE status = 'pending' AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT 1", [
      dateParam(now),
    ]);
    return { counts, oldestDueAt: due.length ? readDate(due[0].due) : null };
  }

  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    assertDate(cutoff, 'cutoff');
    const rows = await deleteBounded(this.db, { table: 'webhook_messages', key: 'id', where: "status IN ('delivered', 'dead') AND created_at < $1", returning: 'id' }, [dateParam(cutoff)], limit);
    return rows.length;
  }
}

/**
 * Inserts messages as `pending` with 0 attempts, inside the caller's transaction (the audit log
 * queues an entry's deliveries with it). Throws when one names an endpoint outside the scope.
 */
export async function insertWebhookMessages(tx: Sql, scope: TenantScope, messages: WebhookMessage[]): Promise<void> {
  for (const m of messages) {
    assertUuid(m.id, 'message id');
    assertUuid(m.endpointId, 'endpoint id');
    assertDate(m.nextAttemptAt, 'nextAttemptAt');
    assertDate(m.createdAt, 'createdAt');
    const rows = await tx.query(
      `INSERT INTO webhook_messages (${MESSAGE_COLUMNS})
       SELECT $1, project_id, environment, id, $2, $3, 'pending', 0, $4, NULL, NULL, NULL, $5, NULL
       FROM webhook_endpoints WHERE project_id = $6 AND environment = $7 AND id = $8 RETURNING id`,
      [m.id, m.eventType, m.payload, dateParam(m.nextAttemptAt), dateParam(m.createdAt), scope.projectId, scope.environment, m.endpointId],
    );
    if (rows.length === 0) throw new Error('webhook endpoint not in scope');
  }
}

function toEndpoint(row: WebhookEndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    eventTypes: readJson<SecurityEventType[]>(row.event_types),
    enabled: readBoolean(row.enabled),
    disabledReason: row.disabled_reason,
    sealedSecret: row.sealed_secret,
    sealedPreviousSecret: row.sealed_previous_secret,
    previousSecretExpiresAt: readNullableDate(row.previous_secret_expires_at),
    createdAt: readDate(row.created_at),
    updatedAt: readDate(row.updated_at),
  };
}

function toMessage(row: WebhookMessageRow): WebhookMessage {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventType: row.event_type as SecurityEventType,
    payload: row.payload,
    status: row.status as WebhookMessageStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: readDate(row.next_attempt_at),
    leaseUntil: readNullableDate(row.lease_until),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    createdAt: readDate(row.created_at),
    deliveredAt: readNullableDate(row.delivered_at),
  };
}
