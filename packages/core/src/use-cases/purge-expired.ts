import { rateLimitedRetentionStart } from '../domain/activity-stats';
import { knownSince } from '../domain/known-device';
import type { ConsoleSignOutStore } from '../ports/console-sign-out-store';
import type { OidcArtifactStore } from '../ports/oidc-artifact-store';
import type { AuthDeps, OptionalDeps } from './deps';

/** Rows deleted by one purge, per kind. A session's remaining tokens go with it and are not counted. */
export interface PurgeCounts {
  refreshTokens: number;
  sessions: number;
  /** Magic links, resets, exchange codes, second-factor and WebAuthn challenges, OAuth states. */
  oneTimeTokens: number;
  outboxMails: number;
  /** The hosted OIDC provider's expired sessions, grants, codes and tokens (0 without it). */
  oidcArtifacts: number;
  /** Known clients whose last sign-in is older than the retention (90 days). */
  knownDevices: number;
  /** Audit-log entries past their project's retention. */
  auditEntries: number;
  /** Delivered and dead webhook messages (with their delivery log) older than the outbox retention. */
  webhookMessages: number;
  /** Console sign-outs whose session would have expired by now (0 without the store). */
  consoleSignOuts: number;
  /** Hourly counts of rate-limited requests older than any stats period reaches (90 days). */
  rateLimitedHours: number;
}

export interface PurgeOptions {
  /** Rows per statement (default 1000): each batch is short, so no sweep holds a big lock. */
  batchSize?: number;
  /** How long sent and dead mails, and delivered and dead webhook messages, stay listed (default 7 days). */
  outboxRetentionSeconds?: number;
  /**
   * Answers true once the purge should end early (the service is shutting down): no further
   * batch starts, the batch in flight ends as it ends (each is one short statement), and the
   * counts so far are answered. What is left is deleted by the next purge.
   */
  stopping?: () => boolean;
}

export const DEFAULT_PURGE_BATCH_SIZE = 1000;
export const DEFAULT_OUTBOX_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** Stores of capabilities a host left out, and the OIDC provider's (docs/decisions.md#hosted-oidc-provider), are optional: nothing to purge. */
type PurgeDeps = Pick<AuthDeps, 'clock' | 'sessions'> &
  OptionalDeps<'oneTimeTokens' | 'outbox' | 'knownDevices' | 'auditLog' | 'webhooks' | 'rateLimitStats'> & {
    oidcArtifacts?: Pick<OidcArtifactStore, 'deleteExpired'>;
    consoleSignOuts?: Pick<ConsoleSignOutStore, 'deleteExpired'>;
  };

/**
 * Deletes what nobody can use any more, over every tenant: revoked sessions, expired refresh
 * tokens and the sessions they leave unrefreshable, expired one-time tokens, finished mails past
 * the retention, known clients not seen within theirs, and expired OIDC provider artifacts when
 * the host has the provider, audit entries past their project's retention, and hourly rate-limited counts no stats period reaches. Each kind runs in batches until one comes back short; one `now` for all.
 * A purge told to stop (`options.stopping`) starts no further batch.
 */
export async function purgeExpired(deps: PurgeDeps, options: PurgeOptions = {}): Promise<PurgeCounts> {
  const limit = options.batchSize ?? DEFAULT_PURGE_BATCH_SIZE;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError('batchSize must be a positive integer');
  const stopping = options.stopping ?? (() => false);
  const inBatches = (batch: () => Promise<number>) => batchesUntilShort(limit, stopping, batch);
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - (options.outboxRetentionSeconds ?? DEFAULT_OUTBOX_RETENTION_SECONDS) * 1000);
  const counts: PurgeCounts = {
    refreshTokens: 0,
    sessions: 0,
    oneTimeTokens: 0,
    outboxMails: 0,
    oidcArtifacts: 0,
    knownDevices: 0,
    auditEntries: 0,
    webhookMessages: 0,
    consoleSignOuts: 0,
    rateLimitedHours: 0,
  };
  counts.sessions += await inBatches(() => deps.sessions.deleteRevoked(now, limit));
  counts.refreshTokens = await inBatches(async () => {
    const batch = await deps.sessions.deleteExpired(now, limit);
    counts.sessions += batch.sessions;
    return batch.refreshTokens;
  });
  const { oneTimeTokens, outbox, knownDevices, oidcArtifacts, auditLog, webhooks, consoleSignOuts, rateLimitStats } = deps;
  if (webhooks) counts.webhookMessages = await inBatches(() => webhooks.deleteFinishedBefore(cutoff, limit));
  if (rateLimitStats) counts.rateLimitedHours = await inBatches(() => rateLimitStats.deleteBefore(rateLimitedRetentionStart(now), limit));
  if (auditLog) counts.auditEntries = await inBatches(() => auditLog.deleteExpired(now, limit));
  if (oneTimeTokens) counts.oneTimeTokens = await inBatches(() => oneTimeTokens.deleteExpired(now, limit));
  if (outbox) counts.outboxMails = await inBatches(() => outbox.deleteFinishedBefore(cutoff, limit));
  const unknownFrom = knownSince(now);
  if (knownDevices) counts.knownDevices = await inBatches(() => knownDevices.deleteSeenBefore(unknownFrom, limit));
  if (oidcArtifacts) counts.oidcArtifacts = await inBatches(() => oidcArtifacts.deleteExpired(now, limit));
  if (consoleSignOuts) counts.consoleSignOuts = await inBatches(() => consoleSignOuts.deleteExpired(now, limit));
  return counts;
}

/** Runs `batch` until it deletes fewer than `limit` rows, or until `stopping`; answers the total. */
async function batchesUntilShort(limit: number, stopping: () => boolean, batch: () => Promise<number>): Promise<number> {
  let total = 0;
  while (!stopping()) {
    const deleted = await batch();
    total += deleted;
    if (deleted < limit) break;
  }
  return total;
}
