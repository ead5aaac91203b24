import type { TenantScope } from '../domain/environment';
import type { HeldClaim } from './held-claim';
import type { ClaimedWebhookMessage, WebhookAttempt, WebhookEndpoint, WebhookMessage, WebhookMessageStatus } from '../domain/webhook';

/** The fields of an endpoint an update may set. */
export type WebhookEndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'eventTypes' | 'enabled' | 'disabledReason' | 'sealedSecret' | 'sealedPreviousSecret' | 'previousSecretExpiresAt'>>;

/** What a finished attempt leaves the message as. */
export type WebhookOutcome = { status: 'delivered' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'dead' };

/**
 * Webhook endpoints of each project environment and the durable queue of their deliveries
 * (the outbox pattern: requests only enqueue, a worker delivers with retries).
 */
export interface WebhookStore {
  createEndpoint(scope: TenantScope, endpoint: WebhookEndpoint): Promise<void>;
  /** The scope's endpoints, oldest first. */
  listEndpoints(scope: TenantScope): Promise<WebhookEndpoint[]>;
  findEndpoint(scope: TenantScope, id: string): Promise<WebhookEndpoint | null>;
  /** Sets the given fields and `updatedAt`; null when the endpoint is not in the scope. */
  updateEndpoint(scope: TenantScope, id: string, changes: WebhookEndpointChanges, updatedAt: Date): Promise<WebhookEndpoint | null>;
  /** Deletes the endpoint with its messages and their attempts; false when it is not in the scope. */
  deleteEndpoint(scope: TenantScope, id: string): Promise<boolean>;
  /** Stores each message as `pending`, due at its `nextAttemptAt`, 0 attempts; all or none. */
  enqueue(scope: TenantScope, messages: WebhookMessage[]): Promise<void>;
  /**
   * Claims up to `limit` messages of any tenant that are `pending` and due at `now`, or
   * `sending` with an expired lease (their worker died): each becomes `sending` with
   * `leaseUntil = now + leaseSeconds` and one more attempt, oldest due first. Concurrent claimers
   * never receive the same message while its lease runs (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
   */
  claimDue(now: Date, options: { limit: number; leaseSeconds: number }): Promise<ClaimedWebhookMessage[]>;
  /**
   * Records the attempt in the delivery log and, if the message is still `sending`, applies the
   * outcome (`delivered` sets `deliveredAt` to the attempt's time). A message no longer `sending`
   * (another worker took it over after its lease ran out) keeps its state; the attempt is logged.
   */
  finishAttempt(scope: TenantScope, attempt: WebhookAttempt, outcome: WebhookOutcome): Promise<void>;
  /**
   * Gives claimed messages back undelivered (the worker is stopping before their turn), all in one
   * write: each still held under its claim's lease (`sending`, `leaseUntil` as claimed) becomes
   * `pending`, due at `dueAt`, with the claim's attempt taken back; nothing is logged and its last
   * status and error stay. Any other message (taken over, finished, of another scope) is left.
   */
  release(claims: readonly HeldClaim[], dueAt: Date): Promise<void>;
  /** The scope's messages (of one endpoint, if given), newest first. */
  listMessages(scope: TenantScope, query: { endpointId?: string; limit: number }): Promise<WebhookMessage[]>;
  findMessage(scope: TenantScope, id: string): Promise<WebhookMessage | null>;
  /** The delivery log of one message, oldest first. */
  listAttempts(scope: TenantScope, messageId: string): Promise<WebhookAttempt[]>;
  /**
   * Redelivery: a message that is not `sending` becomes `pending`, due at `now`, with its
   * attempts reset (the schedule starts over; the id stays). False when missing or in flight.
   */
  requeue(scope: TenantScope, messageId: string, now: Date): Promise<boolean>;
  /**
   * Redelivery of a time range: up to `limit` of the endpoint's `delivered` or `dead` messages
   * created in [`from`, `to`) are requeued as `requeue` does; answers how many.
   */
  requeueRange(scope: TenantScope, endpointId: string, range: { from: Date; to: Date; limit: number }, now: Date): Promise<number>;
  /** Messages per status over every tenant, and the oldest due pending message's due time (lag). */
  stats(now: Date): Promise<{ counts: Record<WebhookMessageStatus, number>; oldestDueAt: Date | null }>;
  /** Housekeeping over every tenant: deletes up to `limit` delivered or dead messages created before `cutoff`. */
  deleteFinishedBefore(cutoff: Date, limit: number): Promise<number>;
}
