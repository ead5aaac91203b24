import {
  MAIL_TEMPLATES,
  OUTBOX_STATUSES,
  type EnqueueOptions,
  type HeldClaim,
  type MailOutbox,
  type MailTemplate,
  type NewOneTimeToken,
  type NewOutboxMail,
  type OutboxMail,
  type OutboxStatus,
  type SentMail,
  type TenantScope,
} from '@svc/core';
import { assertLimit, deleteBounded } from './bounded-delete';
import type { Database } from './database';
import type { MailOutboxRow } from './rows';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, jsonParam, readCount, readDate, readNullableDate } from './row-values';
import { assertOneTimeToken, insertOneTimeToken } from './typeorm-one-time-token-store';
import { claimLeased, releaseLeased } from './lease-claim';
import { NaturalBatch } from './natural-batch';

const COLUMN_NAMES = [
  'id',
  'project_id',
  'environment',
  'recipient',
  'template',
  'sealed_payload',
  'status',
  'attempts',
  'next_attempt_at',
  'lease_until',
  'last_error',
  'message_id',
  'created_at',
  'expires_at',
  'sent_at',
];
const COLUMNS = COLUMN_NAMES.join(', ');
const IN_SCOPE = 'project_id = $1 AND environment = $2 AND id = $3';
/** Sent or dead, created before $1; the same condition as mail_outbox_finished_idx (plus the cutoff). */
const FINISHED_BEFORE = "status IN ('sent', 'dead') AND created_at < $1";

/** A link mail with its token, as one PostgreSQL statement writes it. */
interface LinkMailWrite {
  scope: TenantScope;
  mail: NewOutboxMail;
  token: NewOneTimeToken;
  /** The user's older open tokens of this purpose are consumed by the same statement. */
  superseding: boolean;
}

/** The most link mails one statement writes (`enqueueMany`). */
const LINK_MAILS_PER_STATEMENT = 50;

/** MailOutbox on PostgreSQL (shared by every API instance) or SQLite. */
export class TypeormMailOutbox implements MailOutbox {
  /**
   * PostgreSQL: the link mails enqueued outside a unit of work (the mail requests, answered before
   * their work) that arrive while one is being written go together in the next statement.
   */
  private readonly linkMails = new NaturalBatch<LinkMailWrite>({
    many: async (writes) => {
      await this.enqueueMany(writes);
      return writes.map(() => undefined);
    },
    one: (write) => this.enqueueMany([write]),
    // A user's two tokens of one purpose never share a statement: the later one's supersede sees
    // the earlier one, as it would if each had a statement of its own.
    keyOf: ({ scope, mail, token }) => (token.userId === null ? mail.id : `${scope.projectId}|${scope.environment}|${token.purpose}|${token.userId}`),
    maxItems: LINK_MAILS_PER_STATEMENT,
  });

  constructor(private readonly db: Database) {}

  /** The token (if any) and the mail in one transaction: both rows or neither (docs/operating.md#the-e-mail-outbox). */
  async enqueue(scope: TenantScope, mail: NewOutboxMail, options: EnqueueOptions = {}): Promise<void> {
    assertScope(scope);
    assertUuid(mail.id, 'mail id');
    assertText(mail.to, 'recipient');
    assertText(mail.sealedPayload, 'sealed payload');
    if (!(MAIL_TEMPLATES as readonly string[]).includes(mail.template)) throw new TypeError('unknown mail template');
    assertDate(mail.createdAt, 'createdAt');
    assertDate(mail.expiresAt, 'expiresAt');
    if (this.db.kind === 'postgres' && options.token) {
      const { token, supersede } = options.token;
      assertOneTimeToken(token);
      const write: LinkMailWrite = { scope, mail, token, superseding: supersede && token.userId !== null };
      return this.db.mayShareStatements() ? this.linkMails.add(write) : this.enqueueMany([write]);
    }
    await this.db.transaction(async (tx) => {
      if (options.token) await insertOneTimeToken(tx, scope, options.token.token, options.token.supersede);
      await tx.query(
        `INSERT INTO mail_outbox (${COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, NULL, NULL, NULL, $7, $8, NULL)`,
        [mail.id, scope.projectId, scope.environment, mail.to, mail.template, mail.sealedPayload, dateParam(mail.createdAt), dateParam(mail.expiresAt)],
      );
    });
  }

  /**
   * PostgreSQL: supersede, tokens and mails as ONE statement, for one mail or several (their values
   * as arrays, `unnest`): data-modifying CTEs run once and to completion, and a statement is atomic
   * on its own, so it is one round trip and one commit instead of BEGIN, UPDATE, INSERT, INSERT,
   * COMMIT, all of it or none. The UPDATE sees the table as it was before the statement, so, as in
   * the transaction, it never consumes a token it inserts; and no two of the mails are a token of
   * the same user and purpose (`linkMails` keeps those apart), so it consumes each older token once.
   */
  private async enqueueMany(writes: readonly LinkMailWrite[]): Promise<void> {
    const column = <V>(value: (write: LinkMailWrite) => V) => writes.map(value);
    await this.db.query(
      `WITH v AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[],
                              $9::text[], $10::uuid[], $11::text[], $12::timestamptz[], $13::text[], $14::timestamptz[], $15::boolean[])
           AS v (project_id, environment, id, recipient, template, sealed_payload, created_at, expires_at,
                 purpose, user_id, token_hash, token_created_at, token_data, token_expires_at, superseding)),
       superseded AS (
         UPDATE one_time_tokens AS t SET consumed_at = v.token_created_at FROM v
         WHERE v.superseding AND t.project_id = v.project_id AND t.environment = v.environment AND t.purpose = v.purpose
           AND t.user_id = v.user_id AND t.consumed_at IS NULL
         RETURNING 1),
       token AS (
         INSERT INTO one_time_tokens (token_hash, project_id, environment, purpose, user_id, data, created_at, expires_at, consumed_at, failed_attempts)
         SELECT token_hash, project_id, environment, purpose, user_id, token_data::jsonb, token_created_at, token_expires_at, NULL, 0 FROM v
         RETURNING 1)
       INSERT INTO mail_outbox (${COLUMNS})
       SELECT id, project_id, environment, recipient, template, sealed_payload, 'pending', 0, created_at, NULL, NULL, NULL, created_at, expires_at, NULL FROM v`,
      [
        column((w) => w.scope.projectId),
        column((w) => w.scope.environment),
        column((w) => w.mail.id),
        column((w) => w.mail.to),
        column((w) => w.mail.template),
        column((w) => w.mail.sealedPayload),
        column((w) => dateParam(w.mail.createdAt)),
        column((w) => dateParam(w.mail.expiresAt)),
        column((w) => w.token.purpose),
        column((w) => w.token.userId),
        column((w) => w.token.tokenHash),
        column((w) => dateParam(w.token.createdAt)),
        column((w) => jsonParam(w.token.data ?? {})),
        column((w) => dateParam(w.token.expiresAt)),
        column((w) => w.superseding),
      ],
    );
  }

  /**
   * PostgreSQL: the due rows are locked with `FOR UPDATE SKIP LOCKED` in a materialised CTE and
   * claimed by the UPDATE of the same statement, so concurrent claimers on any instance skip
   * each other's rows instead of waiting or double-claiming. SQLite: one exclusive transaction.
   */
  async claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<OutboxMail[]> {
    const rows = await claimLeased<MailOutboxRow>(this.db, { table: 'mail_outbox', columns: COLUMN_NAMES }, now, options);
    // RETURNING follows no order; hand the mails out oldest due first, as documented.
    return rows.map(toMail).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
  }

  /**
   * PostgreSQL: one UPDATE joined with the marks as arrays (`unnest`), so a round of ten mails is
   * one statement and one commit instead of ten. SQLite: one transaction of single-row UPDATEs.
   */
  async markSent(sent: readonly SentMail[]): Promise<void> {
    const marks = sent.filter((mark) => isScope(mark.scope) && isUuid(mark.id));
    if (marks.length === 0) return;
    for (const mark of marks) assertDate(mark.sentAt, 'sentAt');
    if (this.db.kind === 'postgres') {
      // sealed_payload is wiped unless the mark keeps it; a CASE over a column of the join, not text built from input.
      await this.db.query(
        `UPDATE mail_outbox AS m SET status = 'sent', message_id = v.message_id, sent_at = v.sent_at, lease_until = NULL,
           sealed_payload = CASE WHEN v.keep_payload THEN m.sealed_payload ELSE NULL END
         FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::timestamptz[], $6::boolean[])
           AS v (project_id, environment, id, message_id, sent_at, keep_payload)
         WHERE m.project_id = v.project_id AND m.environment = v.environment AND m.id = v.id`,
        [
          marks.map((m) => m.scope.projectId),
          marks.map((m) => m.scope.environment),
          marks.map((m) => m.id),
          marks.map((m) => m.messageId),
          marks.map((m) => dateParam(m.sentAt)),
          marks.map((m) => m.keepPayload),
        ],
      );
      return;
    }
    await this.db.transaction(async (tx) => {
      for (const mark of marks) {
        // Built from two fixed texts, never from input; better-sqlite3 cannot bind booleans anyway.
        const wipe = mark.keepPayload ? '' : ', sealed_payload = NULL';
        await tx.query(`UPDATE mail_outbox SET status = 'sent', message_id = $4, sent_at = $5, lease_until = NULL${wipe} WHERE ${IN_SCOPE}`, [
          mark.scope.projectId,
          mark.scope.environment,
          mark.id,
          mark.messageId,
          dateParam(mark.sentAt),
        ]);
      }
    });
  }

  async markFailed(scope: TenantScope, id: string, failure: { error: string; nextAttemptAt: Date | null; keepPayload: boolean }): Promise<void> {
    if (!isScope(scope) || !isUuid(id)) return;
    const params: unknown[] = [scope.projectId, scope.environment, id, failure.error];
    let set: string;
    if (failure.nextAttemptAt) {
      assertDate(failure.nextAttemptAt, 'nextAttemptAt');
      params.push(dateParam(failure.nextAttemptAt));
      set = "status = 'pending', next_attempt_at = $5";
    } else {
      set = failure.keepPayload ? "status = 'dead'" : "status = 'dead', sealed_payload = NULL";
    }
    // Only a claim still in flight: a mail another worker already marked sent stays sent.
    await this.db.query(`UPDATE mail_outbox SET ${set}, last_error = $4, lease_until = NULL WHERE ${IN_SCOPE} AND status = 'sending'`, params);
  }

  async release(claims: readonly HeldClaim[], dueAt: Date): Promise<void> {
    await releaseLeased(this.db, 'mail_outbox', claims, dueAt);
  }

  async listForAddress(scope: TenantScope, to: string, limit: number): Promise<OutboxMail[]> {
    assertLimit(limit);
    if (!isScope(scope) || !isText(to)) return [];
    const rows = await this.db.query<MailOutboxRow>(
      `SELECT ${COLUMNS} FROM mail_outbox WHERE project_id = $1 AND environment = $2 AND recipient = $3
       ORDER BY created_at DESC, id DESC LIMIT $4`,
      [scope.projectId, scope.environment, to, limit],
    );
    return rows.map(toMail);
  }

  async listDead(query: { projectId: string; environment?: TenantScope['environment']; limit: number }): Promise<OutboxMail[]> {
    assertLimit(query.limit);
    if (!isUuid(query.projectId)) return [];
    const params: unknown[] = [query.projectId, query.limit];
    const environment = query.environment === undefined ? '' : `AND environment = $${params.push(query.environment)}`;
    const rows = await this.db.query<MailOutboxRow>(
      `SELECT ${COLUMNS} FROM mail_outbox WHERE status = 'dead' AND project_id = $1 ${environment}
       ORDER BY created_at DESC, id DESC LIMIT $2`,
      params,
    );
    return rows.map(toMail);
  }

  async stats(): Promise<Record<OutboxStatus, number>> {
    const counts = Object.fromEntries(OUTBOX_STATUSES.map((s) => [s, 0])) as Record<OutboxStatus, number>;
    const rows = await this.db.query<{ status: string; n: unknown }>('SELECT status, count(*) AS n FROM mail_outbox GROUP BY status');
    for (const row of rows) counts[row.status as OutboxStatus] = readCount(row.n);
    return counts;
  }

  /**
   * Bounded delete through `mail_outbox_finished_idx`. The statuses are literals, not parameters,
   * so both databases can match the partial index's own condition.
   */
  async deleteFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    assertDate(cutoff, 'cutoff');
    const spec = { table: 'mail_outbox', key: 'id', where: FINISHED_BEFORE, returning: 'id' };
    return (await deleteBounded(this.db, spec, [dateParam(cutoff)], limit)).length;
  }
}

function toMail(row: MailOutboxRow): OutboxMail {
  return {
    id: row.id,
    projectId: row.project_id,
    environment: row.environment as OutboxMail['environment'],
    to: row.recipient,
    template: row.template as MailTemplate,
    sealedPayload: row.sealed_payload,
    status: row.status as OutboxStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: readDate(row.next_attempt_at),
    leaseUntil: readNullableDate(row.lease_until),
    lastError: row.last_error,
    messageId: row.message_id,
    createdAt: readDate(row.created_at),
    expiresAt: readDate(row.expires_at),
    sentAt: readNullableDate(row.sent_at),
  };
}
