import { webhookMessageId, type WebhookAttempt, type WebhookEndpoint, type WebhookMessage } from '@svc/core';

// Webhook records as the admin API shows them, field by field: never a secret, sealed or not.

const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

export function presentWebhookEndpoint(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: endpoint.eventTypes,
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    previousSecretExpiresAt: isoOrNull(endpoint.previousSecretExpiresAt),
    createdAt: iso(endpoint.createdAt),
    updatedAt: iso(endpoint.updatedAt),
  };
}

export function presentWebhookMessage(message: WebhookMessage) {
  return {
    id: message.id,
    webhookId: webhookMessageId(message.id),
    endpointId: message.endpointId,
    eventType: message.eventType,
    status: message.status,
    attempts: message.attempts,
    nextAttemptAt: iso(message.nextAttemptAt),
    lastStatusCode: message.lastStatusCode,
    lastError: message.lastError,
    createdAt: iso(message.createdAt),
    deliveredAt: isoOrNull(message.deliveredAt),
    payload: JSON.parse(message.payload) as unknown,
  };
}

export function presentWebhookAttempt(attempt: WebhookAttempt) {
  return { attempt: attempt.attempt, at: iso(attempt.at), statusCode: attempt.statusCode, error: attempt.error, durationMs: attempt.durationMs };
}
