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
  /** Set while `stop()` waits for the round in flight: that round starts no more deliveries. */
  private stopping = false;
  /** Handed to the deliveries; `stop()` aborts it when its budget runs out. */
  private cut = new AbortController();
  private draining = false;

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

  /**
   * Stops scheduling and waits for the round in flight, which starts no more deliveries: the
   * messages of its claim not sent yet go back to the queue, due at once, their tries not spent
   * (`deliverWebhooks`). Deliveries in flight end as they end, or once `budget` aborts are cut (a
   * receiver that accepts and never answers would hold the stop for the transport's timeout): each
   * is a failed try, logged and retried on the schedule.
   */
  async stop(options: { budget?: AbortSignal } = {}): Promise<void> {
    const { budget } = options;
    this.stopping = true;
    const cut = () => {
      if (this.draining) this.options.logger.warn({}, 'webhooks: deliveries still in flight at shutdown cut; they are retried');
      this.cut.abort();
    };
    if (budget?.aborted) cut();
    else budget?.addEventListener('abort', cut, { once: true });
    try {
      await this.loop.stop();
    } finally {
      budget?.removeEventListener('abort', cut);
      this.stopping = false;
      this.cut = new AbortController();
    }
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      for (;;) {
        const round = await deliverWebhooks(this.deps, this.policy, { stopping: () => this.stopping, signal: this.cut.signal });
        this.count(round);
        if (round.claimed < this.policy.batchSize || this.stopping) return;
      }
    } finally {
      this.draining = false;
    }
  }

  private count(round: WebhookDeliveryReport): void {
    const { metrics, logger } = this.options;
    metrics?.webhookDeliveries.inc({ result: 'sent' }, round.delivered);
    metrics?.webhookDeliveries.inc({ result: 'failed' }, round.retried);
    metrics?.webhookDeliveries.inc({ result: 'dead' }, round.dead);
    for (const seconds of round.lagSeconds) metrics?.webhookLag.observe(seconds);
    if (round.retried || round.dead) logger.warn({ delivered: round.delivered, retried: round.retried, dead: round.dead }, 'webhooks: some deliveries failed');
    if (round.released) logger.info({ released: round.released }, 'webhooks: stopping; the messages of its claim not sent yet are back in the queue, due at once');
  }
}
