import type { Logger } from 'pino';
import type { Metrics } from './metrics';

export interface AfterAnswerOptions {
  logger: Pick<Logger, 'error'>;
  /** Counts work that failed after its answer was sent. */
  metrics?: Pick<Metrics, 'acceptedRequestsFailed'>;
  /** Jobs running at once; beyond it, new answers wait for a free slot (default 256). */
  maxPending?: number;
}

/** What a job is, for the log line and the `kind` label when it fails. */
export type AfterAnswerKind = 'magic_link' | 'password_reset' | 'email_verification';

/**
 * Work a request leaves for after its answer: the magic-link and reset requests, whose answer
 * must not wait on anything that depends on the account (a lookup, a user created, a mail queued),
 * or its timing would tell whether the account exists (docs/decisions.md, "Mail requests answer
 * first"). A job starts at once, in this process; it is never retried, and a failure is logged and
 * counted. `maxPending` bounds the jobs in flight: once it is reached, the next answer waits for a
 * slot, whatever its account, so a flood queues at the door instead of in memory. `idle()` waits
 * for every job: the container's close() calls it before the storage goes.
 */
export class AfterAnswer {
  private readonly pending = new Set<Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private readonly maxPending: number;

  constructor(private readonly options: AfterAnswerOptions) {
    this.maxPending = options.maxPending ?? 256;
    if (!(Number.isInteger(this.maxPending) && this.maxPending >= 1)) throw new RangeError('maxPending must be a positive integer');
  }

  /** Resolves once a job may start (at once unless `maxPending` jobs are running). */
  async slot(): Promise<void> {
    while (this.pending.size >= this.maxPending) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Starts `work` now, without waiting for it; call it once the answer has been sent. */
  run(kind: AfterAnswerKind, requestId: unknown, work: () => Promise<void>): void {
    const job: Promise<void> = Promise.resolve()
      .then(work)
      .catch((error: unknown) => {
        this.options.logger.error({ err: error, requestId, kind }, 'accepted request failed after its answer; its mail is not sent');
        this.options.metrics?.acceptedRequestsFailed.inc({ kind });
      })
      .finally(() => {
        this.pending.delete(job);
        this.waiting.shift()?.();
      });
    this.pending.add(job);
  }

  /** Resolves when no job is running (also those started while it waits). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
