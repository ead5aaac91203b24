import { deliverWebhooks, DEFAULT_WEBHOOK_POLICY, RoundLoop, type WebhookDeliveryPolicy, type WebhookDeliveryReport, type WebhookDeps } from '@svc/core';
import type { Metrics } from '../http/metrics';

/** What the worker logs with; pino's logger fits. */
interface WebhookWorkerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface WebhookWorkerOptions {
  logger: WebhookWorkerLogger;
  metrics?: Pick<Metrics, 'webhookDeliveries' | 'webhookLag'>;
  /** Pause between rounds when nothing was due (default 1 s: retries come due on their own). */
  intervalMs?: number;
  policy?: Partial<WebhookDeliveryPolicy>;
}

/**
 * Runs `deliverWebhooks` in a loop: a round every `intervalMs`, at once after `wake()` (an event
 * was just queued), and again straight away while rounds come back full. Several processes share
 * the queue through its claims; a process that dies mid-delivery leaves its claims to expire and
 * be taken over, so a message is delivered at least once, always under its one `webhook-id`.
 */
export class WebhookWorker {
  private readonly policy: WebhookDeliveryPolicy;
  private readonly loop: RoundLoop<void>;

  constructor(
    private readonly deps: WebhookDeps,
    private readonly options: WebhookWorkerOptions,
  ) {
    this.policy = { ...DEFAULT_WEBHOOK_POLICY, ...options.policy };
    this.loop = new RoundLoop(() => this.drain(), {
      intervalMs: options.intervalMs ?? 1000,
      onError: (error) => options.logger.warn({ err: error }, 'webhooks: a delivery round failed; the next one tries again'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Asks for a round soon; a no-op when stopped. */
  wake(): void {
    this.loop.wake();
  }

  /** Delivers until a round comes back short; concurrent calls share the round in flight. */
  runOnce(): Promise<void> {
    return this.loop.runOnce();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async drain(): Promise<void> {
    for (;;) {
      const round = await deliverWebhooks(this.deps, this.policy);
      this.count(round);
      if (round.claimed < this.policy.batchSize) return;
    }
  }

  private count(round: WebhookDeliveryReport): void {
    const { metrics, logger } = this.options;
    metrics?.webhookDeliveries.inc({ result: 'sent' }, round.delivered);
    metrics?.webhookDeliveries.inc({ result: 'failed' }, round.retried);
    metrics?.webhookDeliveries.inc({ result: 'dead' }, round.dead);
    for (const seconds of round.lagSeconds) metrics?.webhookLag.observe(seconds);
    if (round.retried || round.dead) logger.warn({ delivered: round.delivered, retried: round.retried, dead: round.dead }, 'webhooks: some deliveries failed');
  }
}
