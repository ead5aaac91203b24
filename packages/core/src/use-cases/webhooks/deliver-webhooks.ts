import type { TenantScope } from '../../domain/environment';
import { nextWebhookAttempt, webhookMessageId, webhookSecretContext, type ClaimedWebhookMessage, type WebhookEndpoint } from '../../domain/webhook';
import type { HeldClaim } from '../../ports/held-claim';
import type { WebhookOutcome } from '../../ports/webhook-store';
import type { WebhookResponse } from '../../ports/webhook-transport';
import type { WebhookDeps } from './webhook-deps';

export interface WebhookDeliveryPolicy {
  /** Messages claimed per round. */
  batchSize: number;
  /** How long a claim lasts before another worker may take the message over. */
  leaseSeconds: number;
}

export const DEFAULT_WEBHOOK_POLICY: WebhookDeliveryPolicy = { batchSize: 20, leaseSeconds: 60 };

/** One round's outcome: per message, what became of it. */
export interface WebhookDeliveryReport {
  claimed: number;
  delivered: number;
  /** Failed, to be tried again. */
  retried: number;
  dead: number;
  /** Given back undelivered, untried, because the round was told to stop (`WebhookStore.release`). */
  released: number;
  /** Seconds from each delivered message's creation to its delivery. */
  lagSeconds: number[];
}

/** How a round learns that the service is stopping. */
export interface WebhookRoundControl {
  /** Once true, the round starts no delivery: the messages not sent yet are released. */
  stopping?: () => boolean;
  /** Handed to each delivery (`WebhookTransport.deliver`): aborted, the deliveries in flight are cut. */
  signal?: AbortSignal;
}

/**
 * One round of the webhook worker: claims what is due and delivers each message concurrently.
 * A 2xx delivers it; a 410 disables the endpoint and ends the message; anything else is tried
 * again on the retry schedule (jittered, `Retry-After` honoured) until the schedule is spent,
 * then the message is dead. A message whose endpoint is gone or turned off is dead at once.
 * Once `control.stopping()` answers true no delivery starts: the claim's messages not sent yet are
 * released at the round's end, due at once, their tries not spent. A delivery cut by
 * `control.signal` was sent and got no answer: a failed try like a timeout, logged and retried.
 */
export async function deliverWebhooks(deps: WebhookDeps, policy: WebhookDeliveryPolicy = DEFAULT_WEBHOOK_POLICY, control: WebhookRoundControl = {}): Promise<WebhookDeliveryReport> {
  const claimed = await deps.webhooks.claimDue(deps.clock.now(), { limit: policy.batchSize, leaseSeconds: policy.leaseSeconds });
  const report: WebhookDeliveryReport = { claimed: claimed.length, delivered: 0, retried: 0, dead: 0, released: 0, lagSeconds: [] };
  const released: HeldClaim[] = [];
  await Promise.all(
    claimed.map(async (message) => {
      const outcome = await deliverOne(deps, message, control);
      if (outcome === 'released') {
        if (message.leaseUntil) released.push({ scope: message.scope, id: message.id, leaseUntil: message.leaseUntil });
        report.released += 1;
      } else if (outcome.status === 'delivered') {
        report.delivered += 1;
        report.lagSeconds.push((deps.clock.now().getTime() - message.createdAt.getTime()) / 1000);
      } else if (outcome.status === 'pending') report.retried += 1;
      else report.dead += 1;
    }),
  );
  if (released.length > 0) await deps.webhooks.release(released, deps.clock.now());
  return report;
}

async function deliverOne(deps: WebhookDeps, message: ClaimedWebhookMessage, control: WebhookRoundControl): Promise<WebhookOutcome | 'released'> {
  const { scope } = message;
  const endpoint = await deps.webhooks.findEndpoint(scope, message.endpointId);
  const started = deps.clock.now();
  // A test delivery goes to its endpoint however it is set; events only to enabled ones.
  const deliverable = endpoint && (endpoint.enabled || message.eventType === 'webhook.test');
  if (deliverable && control.stopping?.()) return 'released';
  const response: WebhookResponse = deliverable
    ? await deps.webhookTransport.deliver(
        {
          url: endpoint.url,
          webhookId: webhookMessageId(message.id),
          timestamp: started,
          payload: message.payload,
          secrets: signingSecrets(deps, endpoint, started),
        },
        control.signal,
      )
    : { statusCode: null, retryAfterSeconds: null, error: endpoint ? 'endpoint disabled' : 'endpoint deleted' };
  const finished = deps.clock.now();
  const outcome = outcomeOf(deps, message, response, finished, { deliverable: !!deliverable });
  await deps.webhooks.finishAttempt(
    scope,
    { messageId: message.id, attempt: message.attempts, at: finished, statusCode: response.statusCode, error: response.error, durationMs: finished.getTime() - started.getTime() },
    outcome,
  );
  if (response.statusCode === 410 && endpoint) await disableGone(deps, scope, endpoint);
  return outcome;
}

function outcomeOf(deps: WebhookDeps, message: ClaimedWebhookMessage, response: WebhookResponse, now: Date, options: { deliverable: boolean }): WebhookOutcome {
  const code = response.statusCode;
  if (code !== null && code >= 200 && code < 300) return { status: 'delivered' };
  if (!options.deliverable || code === 410) return { status: 'dead' };
  const random = deps.random.bytes(1)[0] / 256;
  const next = nextWebhookAttempt(now, message.attempts, random, response.retryAfterSeconds);
  return next ? { status: 'pending', nextAttemptAt: next } : { status: 'dead' };
}

/** The receiver said the endpoint is gone (410): nothing more is sent there until an admin turns it on. */
async function disableGone(deps: WebhookDeps, scope: TenantScope, endpoint: WebhookEndpoint): Promise<void> {
  await deps.webhooks.updateEndpoint(scope, endpoint.id, { enabled: false, disabledReason: 'gone' }, deps.clock.now());
}

/** The current secret, and the previous one while its overlap lasts. */
function signingSecrets(deps: WebhookDeps, endpoint: WebhookEndpoint, now: Date): string[] {
  const secrets = [deps.secretBox.open(endpoint.sealedSecret, webhookSecretContext(endpoint.id))];
  if (endpoint.sealedPreviousSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(deps.secretBox.open(endpoint.sealedPreviousSecret, webhookSecretContext(endpoint.id, 'previous')));
  }
  return secrets;
}
