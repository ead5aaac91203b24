import type { TenantScope } from '../domain/environment';
import type { SecurityEvent } from '../domain/security-event';

/**
 * Where core reports security-relevant moves (a typed port, never a string read out of an
 * error). The audit log and the webhooks are behind it (createEventRecorder); a host may put
 * its own. `emit` resolves once the event is stored: a failure rejects, and the request that
 * caused it fails with `service_unavailable` rather than leave a move unrecorded (emitEvent).
 */
export interface SecurityEventSink {
  emit(scope: TenantScope, event: SecurityEvent): Promise<void>;
}
