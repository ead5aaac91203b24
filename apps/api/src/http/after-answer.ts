import type { Logger } from 'pino';
import { InFlight } from './in-flight';
import type { Metrics } from './metrics';

export interface AfterAnswerOptions {
  logger: Pick<Logger, 'error' | 'info'>;
  /** Counts work that failed after its answer was sent. */
  metrics?: Pick<Metrics, 'acceptedRequestsFailed'>;
  /** Jobs running at once; beyond it, new answers wait for a free slot (default 256). */
  maxPending?: number;
}

/** What a job is, for the log line and the `kind` label when it fails. */
export type AfterAnswerKind = 'magic_link' | 'password_reset' | 'email_verification';

/** A job in flight, as the shutdown reports it if it has to stop waiting for it. */
interface Job {
  kind: AfterAnswerKind;
  requestId: unknown;
  /** Set when `idle()`'s budget ran out with the job still running (logged as not done). */
  givenUp: boolean;
  /** Settles when the job has ended, whatever its outcome. */
  ended: Promise<void>;
}

/**
 * Work a request leaves for after its answer: the magic-link and reset requests, whose answer
 * must not wait on anything that depends on the account (a lookup, a user created, a mail queued),
 * or its timing would tell whether the account exists (docs/decisions.md, "Mail requests answer
 * first"). A job starts at once, in this process; it is never retried, and a failure is logged and
 * counted. `maxPending` bounds the jobs in flight: once it is reached, the next answer waits for a
 * slot, whatever its account, so a flood queues at the door instead of in memory. `idle()` waits
 * for every job: the container's close() calls it, within the shutdown's budget, before the
 * storage goes.
 */
export class AfterAnswer {
  private readonly pending = new InFlight<Job>();
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
    const state: Job = { kind, requestId, givenUp: false, ended: Promise.resolve() };
    const entry = this.pending.add(state);
    state.ended = Promise.resolve()
      .then(work)
      .then(
        () => {
          // The shutdown logged it as not done; say that its mail is queued after all.
          if (state.givenUp) this.options.logger.info({ requestId, kind }, 'accepted request finished after the shutdown stopped waiting; its mail is queued');
        },
        (error: unknown) => {
          this.options.logger.error({ err: error, requestId, kind }, 'accepted request failed after its answer; its mail is not sent');
          this.options.metrics?.acceptedRequestsFailed.inc({ kind });
        },
      )
      .finally(() => {
        this.pending.delete(entry);
        this.waiting.shift()?.();
      });
  }

  /**
   * Resolves when no job is running (also those started while it waits), or once `budget` aborts
   * (the shutdown's time is up): each job still running then is logged as not done, with its
   * request id and kind (its mail may not be queued: the storage is about to close), and its later
   * end is logged too. Answers how many jobs it stopped waiting for.
   */
  async idle(options: { budget?: AbortSignal } = {}): Promise<number> {
    const { budget } = options;
    const timeUp = new Promise<void>((resolve) => {
      if (budget?.aborted) resolve();
      else budget?.addEventListener('abort', () => resolve(), { once: true });
    });
    while (this.pending.size > 0 && !budget?.aborted) await Promise.race([Promise.all(this.pending.values().map((job) => job.ended)), timeUp]);
    const left = this.pending.values().filter((job) => !job.givenUp);
    for (const job of left) {
      job.givenUp = true;
      this.options.logger.error({ requestId: job.requestId, kind: job.kind }, 'accepted request not finished at shutdown; its mail may not be queued');
    }
    return left.length;
  }
}
