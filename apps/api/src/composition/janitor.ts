import type { PurgeCounts } from '@svc/core';
import type { Metrics } from '../http/metrics';

/** What the janitor logs with; pino's logger fits. */
interface JanitorLogger {
  info(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface JanitorOptions {
  /**
   * One purge over every tenant (the container binds `purgeExpired` to the storage); once
   * `stopping()` answers true it starts no further batch.
   */
  purge: (control: { stopping: () => boolean }) => Promise<PurgeCounts>;
  /** Pause between runs (SVC_PURGE_INTERVAL_SECONDS); 0 = the janitor never runs. */
  intervalMs: number;
  /** Pause before the first run; default `firstRunDelayMs()`. */
  firstRunDelayMs?: number;
  logger: JanitorLogger;
  metrics?: Pick<Metrics, 'purgedRows'>;
}

/** The `kind` label of `svc_purged_rows_total` for each count. */
const KIND_LABELS: Record<keyof PurgeCounts, string> = {
  refreshTokens: 'refresh_token',
  sessions: 'session',
  oneTimeTokens: 'one_time_token',
  outboxMails: 'outbox_mail',
  oidcArtifacts: 'oidc_artifact',
  knownDevices: 'known_device',
  auditEntries: 'audit_entry',
  webhookMessages: 'webhook_message',
  consoleSignOuts: 'console_sign_out',
  rateLimitedHours: 'rate_limited_hour',
};

const MINUTE_MS = 60_000;

/**
 * A minute after start (the service is up and warm before it deletes anything), plus up to a
 * minute of jitter, so replicas started together do not purge in step ever after.
 */
export function firstRunDelayMs(random: () => number = Math.random): number {
  return MINUTE_MS + Math.floor(random() * MINUTE_MS);
}

/**
 * Runs the purge of expired rows on a timer: first after `firstRunDelayMs`, then every
 * `intervalMs`. A failed run is logged and the next one tries again; nothing is thrown out of the
 * timer. One run at a time per process; replicas may overlap harmlessly (each deletes what it
 * finds). The timer is `unref`'d, so it never keeps a process alive; `stop()` waits for the run
 * in flight, which starts no further batch once told (each batch is one statement, bounded by
 * the database's statement timeout), so a large backlog cannot hold up a shutdown. `svc purge`
 * calls the use case itself.
 */
export class Janitor {
  private timer: NodeJS.Timeout | undefined;
  /** The run in flight; `stop()` waits for it. */
  private running: Promise<void> | undefined;
  private started = false;
  /** Set while `stop()` waits for the run in flight: that run starts no further batch. */
  private stopping = false;

  constructor(private readonly options: JanitorOptions) {}

  /** Schedules the first run; a no-op when the interval is 0 or it runs already. */
  start(): void {
    if (this.started || this.options.intervalMs <= 0) return;
    this.started = true;
    this.schedule(this.options.firstRunDelayMs ?? firstRunDelayMs());
  }

  /** Stops scheduling and waits for the run in flight, which starts no further batch. */
  async stop(): Promise<void> {
    this.started = false;
    this.stopping = true;
    clearTimeout(this.timer);
    try {
      await this.running;
    } finally {
      this.stopping = false;
    }
  }

  /** The next run after `delayMs`; each run schedules the one after it, so runs never overlap. */
  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.purge().then(() => {
        this.running = undefined;
        if (this.started) this.schedule(this.options.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  /** One purge; never rejects: a failure is logged and the next run tries again. */
  private async purge(): Promise<void> {
    const { logger, metrics } = this.options;
    const started = Date.now();
    try {
      const counts = await this.options.purge({ stopping: () => this.stopping });
      for (const kind of Object.keys(KIND_LABELS) as (keyof PurgeCounts)[]) {
        metrics?.purgedRows.inc({ kind: KIND_LABELS[kind] }, counts[kind]);
      }
      logger.info({ ...counts, ms: Date.now() - started }, 'janitor: purged expired rows');
    } catch (error) {
      logger.error({ err: error }, 'janitor: purge failed; the next run tries again');
    }
  }
}
