import { createHash } from 'node:crypto';

// Statements PostgreSQL keeps parsed and planned on each connection (docs/decisions.md, "Prepared
// statements"). Only the busiest, fixed texts are marked, each a lookup or a write by key (or one
// scope's webhook endpoints): PostgreSQL may switch such a statement to a generic plan after five
// runs, and prepared-plans.test.ts checks that every marked statement's generic plan is its custom
// one, on tables without statistics, with them, and grown since (a generic plan made before
// statistics once read a refresh token through the tenant's indexes: bench/README.md, round 6). A
// text built per call (a list of placeholders) is never marked: each variant would stay prepared
// on every connection.

/** The name each marked text is prepared under: the same on every connection, different for any other text. */
const names = new Map<string, string>();

/** Marks `text` as prepared on PostgreSQL (see above) and answers it unchanged; at module load only. */
export function prepared(text: string): string {
  names.set(text, `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`);
  return text;
}

/** The name `text` is prepared under, or undefined for a statement that is not marked. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}

/** Every marked text (prepared-plans.test.ts checks their plans). */
export function preparedStatements(): readonly string[] {
  return [...names.keys()];
}

/** The longest a connection keeps its cached plans (replanIfDue). */
export const REPLAN_INTERVAL_MS = 1000;

/** When each connection last dropped its cached plans, or first came by. */
const replannedAt = new WeakMap<object, number>();

/**
 * PostgreSQL costs a generic plan once, for the tables as they are then, and keeps it until the
 * table is analysed: one made while a table was tiny reads it whole (a sequential scan is then the
 * cheaper way), and goes on reading it whole as it grows, until autovacuum gets to it (a minute or
 * more; bench/README.md, round 35). An unnamed statement is planned for the table as it is at each
 * run. So a connection drops its cached plans (`DISCARD PLANS`, which keeps the statements
 * prepared) at most once every REPLAN_INTERVAL_MS, before the next statement it is given: a plan
 * is then at most that old, at the cost of planning each statement once more per interval. The
 * answer is not awaited: the driver sends the statement after it, and a connection that cannot
 * answer fails that statement as well.
 */
export function replanIfDue(client: { query(text: string): Promise<unknown> }, now: number = performance.now()): void {
  const since = replannedAt.get(client);
  if (since !== undefined && now - since < REPLAN_INTERVAL_MS) return;
  replannedAt.set(client, now);
  // A connection's first statement finds nothing cached.
  if (since !== undefined) client.query('DISCARD PLANS').catch(() => undefined);
}
