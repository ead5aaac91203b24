import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { isUuid } from '../../domain/ids';
import { isSecurityEventType, type SecurityEventType } from '../../domain/security-event';
import { WEBHOOK_SECRET_OVERLAP_SECONDS, webhookSecretContext, webhookUrlProblem, type WebhookAttempt, type WebhookEndpoint, type WebhookMessage } from '../../domain/webhook';
import type { WebhookEndpointChanges } from '../../ports/webhook-store';
import type { WebhookDeps } from './webhook-deps';
import { enqueueFor } from './enqueue-webhooks';

export interface WebhookEndpointInput {
  url?: string;
  eventTypes?: string[];
  enabled?: boolean;
}

export const MAX_WEBHOOK_ENDPOINTS = 20;
const notFound = () => new AuthError('not_found', 'Webhook endpoint not found.');

/** Creates an endpoint; its `whsec_` secret is answered here once and stored sealed. */
export async function createWebhookEndpoint(
  deps: Pick<WebhookDeps, 'clock' | 'random' | 'secretBox' | 'webhooks'>,
  scope: TenantScope,
  input: WebhookEndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = checkedUrl(input.url);
  const eventTypes = checkedTypes(input.eventTypes ?? []);
  const enabled = checkedEnabled(input.enabled ?? true);
  if ((await deps.webhooks.listEndpoints(scope)).length >= MAX_WEBHOOK_ENDPOINTS) {
    throw new AuthError('validation_error', `An environment may have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints.`);
  }
  const id = deps.random.uuid();
  const secret = newWebhookSecret(deps);
  const now = deps.clock.now();
  const endpoint: WebhookEndpoint = {
    id,
    url,
    eventTypes,
    enabled,
    disabledReason: null,
    sealedSecret: deps.secretBox.seal(secret, webhookSecretContext(id)),
    sealedPreviousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.webhooks.createEndpoint(scope, endpoint);
  return { endpoint, secret };
}

/** Changes the URL, the event types or `enabled` (turning it on again clears why it was off). */
export async function updateWebhookEndpoint(deps: Pick<WebhookDeps, 'clock' | 'webhooks'>, scope: TenantScope, id: string, input: WebhookEndpointInput): Promise<WebhookEndpoint> {
  const changes: WebhookEndpointChanges = {};
  if (input.url !== undefined) changes.url = checkedUrl(input.url);
  if (input.eventTypes !== undefined) changes.eventTypes = checkedTypes(input.eventTypes);
  if (input.enabled !== undefined) {
    changes.enabled = checkedEnabled(input.enabled);
    if (input.enabled) changes.disabledReason = null;
  }
  const updated = isUuid(id) ? await deps.webhooks.updateEndpoint(scope, id, changes, deps.clock.now()) : null;
  if (!updated) throw notFound();
  return updated;
}

/**
 * A new secret, answered once. The old one keeps signing beside it for a day (each delivery
 * carries both signatures), so receivers can switch without missing an event.
 */
export async function rotateWebhookSecret(deps: Pick<WebhookDeps, 'clock' | 'random' | 'secretBox' | 'webhooks'>, scope: TenantScope, id: string): Promise<{ secret: string }> {
  const endpoint = await findEndpoint(deps, scope, id);
  const now = deps.clock.now();
  const previous = deps.secretBox.open(endpoint.sealedSecret, webhookSecretContext(id));
  const secret = newWebhookSecret(deps);
  await deps.webhooks.updateEndpoint(
    scope,
    id,
    {
      sealedSecret: deps.secretBox.seal(secret, webhookSecretContext(id)),
      sealedPreviousSecret: deps.secretBox.seal(previous, webhookSecretContext(id, 'previous')),
      previousSecretExpiresAt: new Date(now.getTime() + WEBHOOK_SECRET_OVERLAP_SECONDS * 1000),
    },
    now,
  );
  return { secret };
}

export async function deleteWebhookEndpoint(deps: Pick<WebhookDeps, 'webhooks'>, scope: TenantScope, id: string): Promise<void> {
  if (!isUuid(id) || !(await deps.webhooks.deleteEndpoint(scope, id))) throw notFound();
}

export async function findEndpoint(deps: Pick<WebhookDeps, 'webhooks'>, scope: TenantScope, id: string): Promise<WebhookEndpoint> {
  const endpoint = isUuid(id) ? await deps.webhooks.findEndpoint(scope, id) : null;
  if (!endpoint) throw notFound();
  return endpoint;
}

/** Queues a `webhook.test` message for this endpoint alone (even a disabled one's URL is tried). */
export async function sendTestWebhook(deps: Pick<WebhookDeps, 'clock' | 'random' | 'webhooks'>, scope: TenantScope, id: string): Promise<WebhookMessage> {
  const endpoint = await findEndpoint(deps, scope, id);
  const at = deps.clock.now();
  const entry = {
    id: deps.random.uuid(),
    type: 'webhook.test' as const,
    at,
    userId: null,
    actor: { type: 'system' as const },
    clientAddress: null,
    userAgent: null,
    requestId: null,
    data: {},
    expiresAt: at,
  };
  const [message] = await enqueueFor(deps, scope, entry, [{ ...endpoint, enabled: true, eventTypes: [] }]);
  return message;
}

/** The delivery log of one endpoint: its latest messages, newest first. */
export async function listWebhookMessages(deps: Pick<WebhookDeps, 'webhooks'>, scope: TenantScope, id: string, limit = 50): Promise<WebhookMessage[]> {
  await findEndpoint(deps, scope, id);
  return deps.webhooks.listMessages(scope, { endpointId: id, limit: Math.min(Math.max(limit, 1), 200) });
}

/** One message with every attempt at it. */
export async function webhookMessageWithAttempts(deps: Pick<WebhookDeps, 'webhooks'>, scope: TenantScope, messageId: string): Promise<{ message: WebhookMessage; attempts: WebhookAttempt[] }> {
  const message = isUuid(messageId) ? await deps.webhooks.findMessage(scope, messageId) : null;
  if (!message) throw new AuthError('not_found', 'Webhook message not found.');
  return { message, attempts: await deps.webhooks.listAttempts(scope, messageId) };
}

/** Delivers the message again under the same `webhook-id`, its schedule started over. */
export async function redeliverWebhook(deps: Pick<WebhookDeps, 'clock' | 'webhooks'>, scope: TenantScope, messageId: string): Promise<void> {
  await webhookMessageWithAttempts(deps, scope, messageId);
  if (!(await deps.webhooks.requeue(scope, messageId, deps.clock.now()))) {
    throw new AuthError('validation_error', 'The message is being delivered right now; try again shortly.');
  }
}

/** Redelivery of a time range: the endpoint's delivered and dead messages created in [from, to), at most 1000. */
export async function redeliverWebhookRange(deps: Pick<WebhookDeps, 'clock' | 'webhooks'>, scope: TenantScope, id: string, range: { from: Date; to: Date }): Promise<{ requeued: number }> {
  await findEndpoint(deps, scope, id);
  if (!(range.from < range.to)) throw new AuthError('validation_error', 'from must be before to.');
  return { requeued: await deps.webhooks.requeueRange(scope, id, { ...range, limit: 1000 }, deps.clock.now()) };
}

function newWebhookSecret(deps: Pick<WebhookDeps, 'random'>): string {
  return `whsec_${Buffer.from(deps.random.bytes(32)).toString('base64')}`;
}

function checkedEnabled(enabled: unknown): boolean {
  if (typeof enabled !== 'boolean') throw new AuthError('validation_error', 'enabled must be true or false.');
  return enabled;
}

function checkedUrl(url: unknown): string {
  const problem = webhookUrlProblem(url);
  if (problem) throw new AuthError('validation_error', problem);
  return url as string;
}

function checkedTypes(types: unknown): SecurityEventType[] {
  if (!Array.isArray(types) || types.length > 50 || !types.every(isSecurityEventType)) {
    throw new AuthError('validation_error', 'eventTypes must be an array of event types (empty = every type).');
  }
  return [...new Set(types)];
}
