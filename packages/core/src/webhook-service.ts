import type { TenantScope } from './domain/environment';
import type { CapabilityDeps, AuthServiceDeps } from './use-cases/deps';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  findEndpoint,
  listWebhookMessages,
  redeliverWebhook,
  redeliverWebhookRange,
  rotateWebhookSecret,
  sendTestWebhook,
  updateWebhookEndpoint,
  webhookMessageWithAttempts,
  type WebhookEndpointInput,
} from './use-cases/webhooks/manage-webhooks';

/** The admin API's webhooks: endpoints, their secrets, the delivery log, tests and redeliveries. */
export function webhookAdminService(deps: AuthServiceDeps & CapabilityDeps<'webhooks'>) {
  return {
    createWebhookEndpoint: (scope: TenantScope, input: WebhookEndpointInput) => createWebhookEndpoint(deps, scope, input),
    listWebhookEndpoints: (scope: TenantScope) => deps.webhooks.listEndpoints(scope),
    getWebhookEndpoint: (scope: TenantScope, id: string) => findEndpoint(deps, scope, id),
    updateWebhookEndpoint: (scope: TenantScope, id: string, input: WebhookEndpointInput) => updateWebhookEndpoint(deps, scope, id, input),
    deleteWebhookEndpoint: (scope: TenantScope, id: string) => deleteWebhookEndpoint(deps, scope, id),
    rotateWebhookSecret: (scope: TenantScope, id: string) => rotateWebhookSecret(deps, scope, id),
    testWebhookEndpoint: (scope: TenantScope, id: string) => sendTestWebhook(deps, scope, id),
    listWebhookMessages: (scope: TenantScope, id: string, limit?: number) => listWebhookMessages(deps, scope, id, limit),
    getWebhookMessage: (scope: TenantScope, messageId: string) => webhookMessageWithAttempts(deps, scope, messageId),
    redeliverWebhook: (scope: TenantScope, messageId: string) => redeliverWebhook(deps, scope, messageId),
    redeliverWebhookRange: (scope: TenantScope, id: string, range: { from: Date; to: Date }) => redeliverWebhookRange(deps, scope, id, range),
  };
}
