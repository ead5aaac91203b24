import type { WebhookDelivery, WebhookResponse, WebhookTransport } from '../ports/webhook-transport';

/** Records each delivery and answers what `answer` says (default 204), for tests without sockets. */
export class RecordingWebhookTransport implements WebhookTransport {
  readonly sent: WebhookDelivery[] = [];
  answer: (delivery: WebhookDelivery) => WebhookResponse = () => ({ statusCode: 204, retryAfterSeconds: null, error: null });

  async deliver(delivery: WebhookDelivery): Promise<WebhookResponse> {
    this.sent.push(structuredClone(delivery));
    return this.answer(delivery);
  }
}
