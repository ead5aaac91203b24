import type { TenantScope } from '../../domain/environment';
import type { AuditEntry } from '../../domain/security-event';
import { subscribes, webhookPayload, type WebhookEndpoint, type WebhookMessage } from '../../domain/webhook';
import type { WebhookDeps } from './webhook-deps';

/** One message for each endpoint that subscribes to the entry's type, due at once. */
export function webhookMessagesFor(deps: Pick<WebhookDeps, 'clock' | 'random'>, entry: AuditEntry, endpoints: WebhookEndpoint[]): WebhookMessage[] {
  const now = deps.clock.now();
  const payload = webhookPayload(entry);
  return endpoints
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
}

/** Queues `entry` for the endpoints that subscribe to it (a test delivery); answers the messages. */
export async function enqueueFor(deps: Pick<WebhookDeps, 'clock' | 'random' | 'webhooks'>, scope: TenantScope, entry: AuditEntry, endpoints: WebhookEndpoint[]): Promise<WebhookMessage[]> {
  const messages = webhookMessagesFor(deps, entry, endpoints);
  if (messages.length > 0) await deps.webhooks.enqueue(scope, messages);
  return messages;
}
