import type { TenantScope } from '../../domain/environment';
import { AuthError } from '../../errors';
import { DEFAULT_SECURITY_SETTINGS } from '../../domain/project';
import { auditEntryOf, type SecurityEvent } from '../../domain/security-event';
import type { AuditLog } from '../../ports/audit-log';
import type { SecurityEventSink } from '../../ports/security-event-sink';
import type { WebhookStore } from '../../ports/webhook-store';
import type { AuthDeps, OptionalDeps } from '../deps';
import { webhookMessagesFor } from '../webhooks/enqueue-webhooks';
import { afterCommit } from '../atomically';
import { cachedPerProject } from '../cached-lookup';
import type { ChangeFeed } from '../../ports/change-feed';

export type EventRecorderDeps = Pick<AuthDeps, 'clock' | 'random' | 'projects' | 'unitOfWork'> & {
  auditLog: AuditLog;
  /**
   * Where admin changes are announced. With it, each project's audit retention is kept between
   * events (auditRetention); without it, every event reads its project.
   */
  changes?: ChangeFeed;
  /** Where the scope's endpoints are read; without it no webhook is queued. */
  webhooks?: Pick<WebhookStore, 'listEndpoints'>;
  /** Called after an event queued deliveries (the API wakes its webhook worker). */
  onDeliveries?: () => void;
};

/**
 * The sink behind the audit log and the webhooks: each event becomes an entry kept for its
 * project's retention, stored together with one delivery per subscribed endpoint (one
 * transaction: the outbox pattern), then the worker is told. Emitted inside a use case's unit of
 * work (atomically), that transaction is the change's own.
 */
export function createEventRecorder(deps: EventRecorderDeps): SecurityEventSink {
  const retention = auditRetention(deps);
  return {
    emit: async (scope, event) => {
      const retentionDays = event.retentionDays ?? (await retention(scope.projectId));
      const entry = auditEntryOf(event, { id: deps.random.uuid(), at: deps.clock.now(), retentionDays });
      const endpoints = deps.webhooks ? await deps.webhooks.listEndpoints(scope) : [];
      const deliveries = webhookMessagesFor(deps, entry, endpoints);
      await deps.auditLog.append(scope, entry, { deliveries });
      // Inside a unit of work the worker is woken after the commit: before it, the deliveries are not there to claim.
      if (deliveries.length > 0 && deps.onDeliveries) await afterCommit(deps, deps.onDeliveries);
    },
  };
}

/**
 * A project's audit retention in days (the default for a project that is gone), kept per project
 * as the API keys' resolutions are (resolve-api-key.ts): for 10 s, dropped at once by a notice about
 * the project, so an event costs its change's transaction one statement less. The retention only
 * dates an entry's end; no check depends on it.
 */
function auditRetention(deps: EventRecorderDeps): (projectId: string) => Promise<number> {
  const read = async (projectId: string) => (await deps.projects.findById(projectId))?.auditRetentionDays ?? DEFAULT_SECURITY_SETTINGS.auditRetentionDays;
  return deps.changes ? cachedPerProject(deps.clock, read, { ttlSeconds: 10, maxEntries: 10_000 }, deps.changes) : read;
}

/**
 * Emits `event` when the service was given a sink; a host without one records nothing. Every use
 * case emits inside the unit of work of the change the event records, so an event that cannot be
 * stored undoes its change and the request fails with `service_unavailable` (docs/decisions.md,
 * "An event that cannot be recorded"): an AuthError of the store passes as it is (an outage the
 * adapter named), anything else is the audit store refusing the entry (a trigger, a grant, a
 * constraint), which the caller can do nothing about but come back.
 */
export async function emitEvent(deps: OptionalDeps<'events'>, scope: TenantScope, event: SecurityEvent): Promise<void> {
  if (!deps.events) return;
  try {
    await deps.events.emit(scope, event);
  } catch (error) {
    if (error instanceof AuthError) throw error;
    throw new AuthError('service_unavailable', undefined, { cause: error, details: { dependency: 'audit_log', reason: 'refused' } });
  }
}
