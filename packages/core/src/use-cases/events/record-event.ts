import type { TenantScope } from '../../domain/environment';
import { DEFAULT_SECURITY_SETTINGS } from '../../domain/project';
import { auditEntryOf, type AuditEntry, type SecurityEvent } from '../../domain/security-event';
import type { AuditLog } from '../../ports/audit-log';
import type { SecurityEventSink } from '../../ports/security-event-sink';
import type { AuthDeps, OptionalDeps } from '../deps';

/** What the recorder does with an entry besides keeping it (the webhooks enqueue their deliveries). */
export interface AuditEntryFollower {
  follow(scope: TenantScope, entry: AuditEntry): Promise<void>;
}

export type EventRecorderDeps = Pick<AuthDeps, 'clock' | 'random' | 'projects'> & {
  auditLog: AuditLog;
  /** Run after the entry is stored, in order (webhook deliveries). */
  followers?: AuditEntryFollower[];
};

/**
 * The sink behind the audit log: each event becomes an entry kept for its project's retention,
 * then every follower sees it (the webhooks enqueue a delivery per subscribed endpoint).
 */
export function createEventRecorder(deps: EventRecorderDeps): SecurityEventSink {
  return {
    emit: async (scope, event) => {
      const project = await deps.projects.findById(scope.projectId);
      const retentionDays = project?.auditRetentionDays ?? DEFAULT_SECURITY_SETTINGS.auditRetentionDays;
      const entry = auditEntryOf(event, { id: deps.random.uuid(), at: deps.clock.now(), retentionDays });
      await deps.auditLog.append(scope, entry);
      for (const follower of deps.followers ?? []) await follower.follow(scope, entry);
    },
  };
}

/** Emits `event` when the service was given a sink; a host without one records nothing. */
export async function emitEvent(deps: OptionalDeps<'events'>, scope: TenantScope, event: SecurityEvent): Promise<void> {
  await deps.events?.emit(scope, event);
}
