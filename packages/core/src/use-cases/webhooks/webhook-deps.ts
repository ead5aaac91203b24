import type { WebhookStore } from '../../ports/webhook-store';
import type { WebhookTransport } from '../../ports/webhook-transport';
import type { AuthDeps } from '../deps';

/** What the webhooks need: their store, the SecretBox for the secrets, and a transport to deliver. */
export interface WebhookDeps extends Pick<AuthDeps, 'clock' | 'random' | 'secretBox'> {
  webhooks: WebhookStore;
  transport: WebhookTransport;
}
