import { deliverOutbox, DEFAULT_DELIVERY_POLICY, maskEmail, RoundLoop, type DeliveryDeps, type DeliveryPolicy, type DeliveryReport, type MailOutbox } from '@svc/core';

/** What the worker logs with; pino's logger fits. */
export interface WorkerLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface OutboxWorkerOptions {
  logger: WorkerLogger;
  /** Pause between rounds when the outbox had nothing due (default 2 s). */
  intervalMs?: number;
  policy?: Partial<DeliveryPolicy>;
}

const EMPTY: DeliveryReport = { claimed: 0, sent: 0, retried: 0, dead: 0, released: 0 };
/** Distinct failure reasons named in one log line at most (an outage fails every mail the same way). */
const MAX_REASONS = 3;
/** Addresses in a server's answer ("550 <ada@example.com> unknown") are masked in the log. */
const ADDRESS = /[^\s<>"'(),;:]+@[^\s<>"'(),;:]+/g;

/**
 * Runs `deliverOutbox` in a loop: a round every `intervalMs`, at once after `wake()` (called when
 * a request enqueues), and again straight away while rounds come back full. One round at a time
 * per process; several processes share the outbox safely through its claims. The timer is
 * `unref`'d, so it never keeps a process alive; `stop()` waits for the round in flight.
 */
export class OutboxWorker {
  private readonly policy: DeliveryPolicy;
  private readonly loop: RoundLoop<DeliveryReport>;
  /** Set while `stop()` waits for the round in flight: that round starts no more sends. */
  private stopping = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly options: OutboxWorkerOptions,
  ) {
    this.policy = { ...DEFAULT_DELIVERY_POLICY, ...options.policy };
    this.loop = new RoundLoop(() => this.drain(), {
      intervalMs: options.intervalMs ?? 2000,
      // The database may be away for a moment; the next round tries again.
      onError: (error) => options.logger.warn({ err: error }, 'outbox round failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Asks for a round soon (a mail was just enqueued); a no-op when stopped. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Delivers until nothing is due (or a round fails) and returns the totals. Concurrent calls
   * share the round in flight. Tests call this directly, with a fixed clock, instead of waiting.
   */
  runOnce(): Promise<DeliveryReport> {
    return this.loop.runOnce();
  }

  /**
   * Stops scheduling and waits for the round in flight, which starts no more sends: the mails of
   * its claim not sent yet go back to the outbox, due at once, their tries not spent (`deliverOutbox`).
   * A send in flight ends as the mailer ends it; the service's shutdown bounds that wait
   * (`Mailer.close` with `force`).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    try {
      await this.loop.stop();
    } finally {
      this.stopping = false;
    }
  }

  private async drain(): Promise<DeliveryReport> {
    const total = { ...EMPTY };
    const reasons = new Set<string>();
    const noteFailure = ({ reason }: { reason: string }) => {
      if (reasons.size < MAX_REASONS) reasons.add(reason.replace(ADDRESS, (address) => maskEmail(address)));
    };
    for (;;) {
      const round = await deliverOutbox(this.deps, this.policy, noteFailure, { stopping: () => this.stopping });
      for (const key of Object.keys(total) as (keyof DeliveryReport)[]) total[key] += round[key];
      if (round.claimed < this.policy.batchSize || this.stopping) break;
    }
    if (total.retried || total.dead) this.options.logger.warn({ ...total, reasons: [...reasons] }, `outbox: some mails failed (retried later or dead-lettered): ${[...reasons].join('; ')}`);
    else if (total.sent) this.options.logger.info({ ...total }, 'outbox: mails sent');
    if (total.released) this.options.logger.info({ released: total.released }, 'outbox: stopping; the mails of its claim not sent yet are back in the queue, due at once');
    return total;
  }
}

/**
 * The outbox as requests see it: unchanged, except that a successful enqueue calls `after`
 * (the worker's `wake`), so mail leaves within milliseconds instead of at the next poll.
 */
export function withEnqueueHook(outbox: MailOutbox, after: () => void): MailOutbox {
  return {
    enqueue: async (scope, mail, options) => {
      await outbox.enqueue(scope, mail, options);
      after();
    },
    claimDue: (now, options) => outbox.claimDue(now, options),
    markSent: (sent) => outbox.markSent(sent),
    markFailed: (scope, id, failure) => outbox.markFailed(scope, id, failure),
    release: (claims, dueAt) => outbox.release(claims, dueAt),
    listForAddress: (scope, to, limit) => outbox.listForAddress(scope, to, limit),
    listDead: (query) => outbox.listDead(query),
    stats: () => outbox.stats(),
    deleteFinishedBefore: (cutoff, limit) => outbox.deleteFinishedBefore(cutoff, limit),
  };
}
