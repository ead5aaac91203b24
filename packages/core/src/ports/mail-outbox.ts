import type { TenantScope } from '../domain/environment';
import type { NewOutboxMail, OutboxMail, OutboxStatus } from '../domain/mail';
import type { NewOneTimeToken } from '../domain/one-time-token';
import type { HeldClaim } from './held-claim';

export interface EnqueueOptions {
  /**
   * The single-use token the mail's link carries. It is stored in the same transaction as the
   * mail (docs/operating.md#the-e-mail-outbox): both or neither. With `supersede`, the user's older open tokens of the same
   * purpose are consumed in that transaction too (see `OneTimeTokenStore.issue`).
   */
  token?: { token: NewOneTimeToken; supersede: boolean };
}

/** One successful send, as `MailOutbox.markSent` records it. */
export interface SentMail {
  scope: TenantScope;
  id: string;
  messageId: string;
  sentAt: Date;
  /** Sandbox mails keep their sealed payload (the sandbox outbox endpoint shows it). */
  keepPayload: boolean;
}

/**
 * Durable queue of outgoing mail. Requests only enqueue; a worker claims due mails, sends them
 * and records the outcome, so an SMTP outage delays mail but never loses it.
 */
export interface MailOutbox {
  /**
   * Stores the mail as `pending`, due at once (`nextAttemptAt = createdAt`), with 0 attempts.
   * With `options.token`, the token and the mail are written atomically: if storing the token
   * fails (e.g. a duplicate hash), the mail is not stored and the call rejects.
   */
  enqueue(scope: TenantScope, mail: NewOutboxMail, options?: EnqueueOptions): Promise<void>;
  /**
   * Claims up to `limit` mails of any tenant that are `pending` with `nextAttemptAt <= now`, or
   * `sending` with `leaseUntil <= now` (their worker died): each becomes `sending` with
   * `leaseUntil = now + leaseSeconds` and one more attempt, and is returned as stored after the
   * claim, oldest due first. Concurrent claimers (threads, processes, instances) never receive
   * the same mail while its lease runs (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<OutboxMail[]>;
  /**
   * Records successful sends, all in one write (a worker's round marks its mails together):
   * each becomes `sent`, with its Message-ID and time. Unless its `keepPayload`, the sealed
   * payload is wiped (the link must not outlive its purpose at rest). A mail not found in its
   * scope is skipped. Idempotent.
   */
  markSent(sent: readonly SentMail[]): Promise<void>;
  /**
   * Records a failed attempt of a `sending` mail with its (secret-free) error text. With a
   * `nextAttemptAt` the mail goes back to `pending`, due then; with null it is `dead` (never tried
   * again, listed by `listDead`) and its payload is wiped unless `keepPayload`. A mail no longer
   * `sending` (another worker already marked it after its lease ran out) is left as it is.
   */
  markFailed(scope: TenantScope, id: string, failure: { error: string; nextAttemptAt: Date | null; keepPayload: boolean }): Promise<void>;
  /**
   * Gives claimed mails back unsent (the worker is stopping before their turn), all in one write:
   * each still held under its claim's lease (`sending`, `leaseUntil` as claimed) becomes `pending`,
   * due at `dueAt`, with the claim's attempt taken back and no failure noted (`lastError` stays as
   * an earlier try left it). Any other mail (taken over after its lease ran out, marked sent or
   * failed, of another scope) is left as it is.
   */
  release(claims: readonly HeldClaim[], dueAt: Date): Promise<void>;
  /** The latest mails to `to` (normalised) in the scope, newest first, payload included. */
  listForAddress(scope: TenantScope, to: string, limit: number): Promise<OutboxMail[]>;
  /** Dead mails of a project (both environments, or one), newest first. */
  listDead(query: { projectId: string; environment?: TenantScope['environment']; limit: number }): Promise<OutboxMail[]>;
  /** Rows per status over every tenant (outbox depth for metrics and health). */
  stats(): Promise<Record<OutboxStatus, number>>;
  /**
   * Housekeeping over every tenant (the janitor): deletes up to `limit` mails that are finished
   * (`sent` or `dead`) and were created before `cutoff` (the retention; the sandbox outbox and
   * the dead letters list recent mails). `pending` and `sending` mails are never deleted, however
   * old. Answers how many.
   */
  deleteFinishedBefore(cutoff: Date, limit: number): Promise<number>;
}
