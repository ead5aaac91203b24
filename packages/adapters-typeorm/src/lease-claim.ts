import type { HeldClaim } from '@svc/core';
import type { Database, Row } from './database';
import { assertLimit } from './bounded-delete';
import { assertDate, isScope, isUuid } from './guards';
import { dateParam } from './row-values';

/** Due: pending and its time has come, or claimed by a worker whose lease ran out. $1 = now. */
const DUE_PENDING = "status = 'pending' AND next_attempt_at <= $1";
const DUE_EXPIRED = "status = 'sending' AND lease_until <= $1";
const DUE = `(${DUE_PENDING}) OR (${DUE_EXPIRED})`;

/**
 * The claim of a queue table (mail_outbox, webhook_messages: `status`, `attempts`,
 * `next_attempt_at`, `lease_until`, `created_at`): up to `limit` due rows become `sending` with
 * one more attempt and a lease, oldest due first. PostgreSQL skips rows another claimer holds
 * (`FOR UPDATE SKIP LOCKED`); SQLite's transactions are exclusive. `table` and `columns` are
 * constants of the caller, never input.
 */
export async function claimLeased<T extends Row>(db: Database, spec: { table: string; columns: readonly string[] }, now: Date, options: { limit: number; leaseSeconds: number }): Promise<T[]> {
  assertDate(now, 'now');
  assertLimit(options.limit);
  if (!(options.leaseSeconds > 0)) throw new RangeError('leaseSeconds must be positive');
  const { table, columns } = spec;
  const params = [dateParam(now), dateParam(new Date(now.getTime() + options.leaseSeconds * 1000)), options.limit];
  const set = "status = 'sending', attempts = attempts + 1, lease_until = $2";
  if (db.kind === 'postgres') {
    // The two ways a row is due are taken apart, each oldest first up to the limit, then the oldest
    // of both: one condition with OR made PostgreSQL fetch and sort every due row (a whole backlog
    // per claim) where the pending half can walk its index in order and stop at the limit
    // (bench/README.md, "Mail requests: the file mailbox composes without streams, the claim stops
    // at its limit"). The same rows are claimed; a row locked here but beyond the limit is free
    // again when the statement ends.
    const pick = (due: string) => `SELECT id, next_attempt_at, created_at FROM ${table} WHERE ${due} ORDER BY next_attempt_at, created_at LIMIT $3 FOR UPDATE SKIP LOCKED`;
    return db.query<T>(
      `WITH pending AS MATERIALIZED (${pick(DUE_PENDING)}),
       expired AS MATERIALIZED (${pick(DUE_EXPIRED)}),
       due AS (SELECT id FROM (SELECT * FROM pending UNION ALL SELECT * FROM expired) AS d ORDER BY next_attempt_at, created_at LIMIT $3)
       UPDATE ${table} m SET ${set} FROM due WHERE m.id = due.id
       RETURNING ${columns.map((c) => `m.${c}`).join(', ')}`,
      params,
    );
  }
  return db.transaction((tx) =>
    tx.query<T>(
      `UPDATE ${table} SET ${set}
       WHERE id IN (SELECT id FROM ${table} WHERE ${DUE} ORDER BY next_attempt_at, created_at LIMIT $3)
       RETURNING ${columns.join(', ')}`,
      params,
    ),
  );
}

/**
 * Gives back items of a claim on a queue table (as `claimLeased` took them) unsent: each row still
 * `sending` under the very lease it was claimed with becomes `pending`, due at `dueAt`, its
 * attempt taken back; `last_error` is not touched. PostgreSQL: one UPDATE joined with the claims
 * as arrays; SQLite: one transaction of single-row UPDATEs. `table` is a constant of the caller.
 */
export async function releaseLeased(db: Database, table: string, claims: readonly HeldClaim[], dueAt: Date): Promise<void> {
  assertDate(dueAt, 'dueAt');
  const held = claims.filter((claim) => isScope(claim.scope) && isUuid(claim.id));
  if (held.length === 0) return;
  for (const claim of held) assertDate(claim.leaseUntil, 'leaseUntil');
  const set = "status = 'pending', attempts = attempts - 1, next_attempt_at = $1, lease_until = NULL";
  if (db.kind === 'postgres') {
    await db.query(
      `UPDATE ${table} AS m SET ${set}
       FROM unnest($2::uuid[], $3::text[], $4::uuid[], $5::timestamptz[]) AS v (project_id, environment, id, lease_until)
       WHERE m.project_id = v.project_id AND m.environment = v.environment AND m.id = v.id AND m.status = 'sending' AND m.lease_until = v.lease_until`,
      [dateParam(dueAt), held.map((c) => c.scope.projectId), held.map((c) => c.scope.environment), held.map((c) => c.id), held.map((c) => dateParam(c.leaseUntil))],
    );
    return;
  }
  await db.transaction(async (tx) => {
    for (const claim of held) {
      await tx.query(`UPDATE ${table} SET ${set} WHERE project_id = $2 AND environment = $3 AND id = $4 AND status = 'sending' AND lease_until = $5`, [
        dateParam(dueAt),
        claim.scope.projectId,
        claim.scope.environment,
        claim.id,
        dateParam(claim.leaseUntil),
      ]);
    }
  });
}
