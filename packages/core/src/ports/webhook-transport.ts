/** One signed delivery as the transport sends it. */
export interface WebhookDelivery {
  url: string;
  /** `webhook-id`: the same on every try of one message. */
  webhookId: string;
  /** `webhook-timestamp`: when this try is signed. */
  timestamp: Date;
  /** The body, sent as is (`Content-Type: application/json`). */
  payload: string;
  /** `whsec_` secrets to sign with: the current one, and during a rotation's overlap the previous one. */
  secrets: string[];
}

/** What came back from one try. */
export interface WebhookResponse {
  /** The receiver's status, or null when none came (refused target, timeout, network). */
  statusCode: number | null;
  /** Seconds from the receiver's `Retry-After`, if it sent one. */
  retryAfterSeconds: number | null;
  /** Why it failed, secret-free, for the delivery log; null on a 2xx. */
  error: string | null;
}

/**
 * Signs (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`) and sends
 * one delivery. Never throws for the receiver's or the network's failures: they are answers.
 */
export interface WebhookTransport {
  /**
   * Once `signal` aborts (the service stops and its budget for deliveries in flight ran out), the
   * delivery is cut and answers at once as a failure without a status (or with one, if the
   * receiver's status line had already come).
   */
  deliver(delivery: WebhookDelivery, signal?: AbortSignal): Promise<WebhookResponse>;
}
