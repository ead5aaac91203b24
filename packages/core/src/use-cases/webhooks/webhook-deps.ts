import type { AuthDeps } from '../deps';

/** What the webhooks need: their store, the SecretBox for their secrets, and a transport to deliver. */
export type WebhookDeps = Pick<AuthDeps, 'clock' | 'random' | 'secretBox' | 'webhooks' | 'webhookTransport'>;
