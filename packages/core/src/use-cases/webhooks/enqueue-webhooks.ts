import type { TenantScope } from '../../domain/environment';
import type { AuditEntry } from '../../domain/security-event';
import { subscribes, webhookPayload, type WebhookEndpoint, type WebhookMessage } from '../../domain/webhook';
import type { AuditEntryFollower } from '../events/record-event';
import type { WebhookDeps } from './webhook-deps';

/** Follows the audit log: each entry becomes one message per subscribed endpoint of its scope. */
export function webhookFollower(deps: Pick<WebhookDeps, 'clock' | 'random' | 'webhooks'>): AuditEntryFollower {
  return {
    follow: async (scope, entry) => {
      const endpoints = await deps.webhooks.listEndpoints(scope);
      await enqueueFor(deps, scope, entry, endpoints);
    },
  };
}

/** Queues `entry` for each endpoint that subscribes to its type, due at once; answers the messages. */
export async function enqueueFor(
  deps: Pick<WebhookDeps, 'clock' | 'random' | 'webhooks'>,
  scope: TenantScope,
  entry: AuditEntry,
  endpoints: WebhookEndpoint[],
): Promise<WebhookMessage[]> {
  const now = deps.clock.now();
  const payload = webhookPayload(entry);
  const messages: WebhookMessage[] = endpoints
    .filter((endpoint) => subscribes(endpoint, entry.type))
    .map((endpoint) => ({
      id: deps.random.uuid(),
      endpointId: endpoint.id,
      eventType: entry.type,
      payload,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      leaseUntil: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: now,
      deliveredAt: null,
    }));
  if (messages.length > 0) await deps.webhooks.enqueue(scope, messages);
  return messages;
}
