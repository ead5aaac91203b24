import type { PurgeCounts } from '@svc/core';
import { firstRunDelayMs, Janitor } from '../src/composition/janitor';
import { createMetrics } from '../src/http/metrics';

const COUNTS: PurgeCounts = {
  refreshTokens: 3,
  sessions: 2,
  oneTimeTokens: 1,
  outboxMails: 0,
  oidcArtifacts: 4,
  knownDevices: 5,
  auditEntries: 6,
  webhookMessages: 7,
  consoleSignOuts: 8,
  rateLimitedHours: 9,
};

/** A janitor on fake timers with a recording logger; `purge` answers COUNTS unless told otherwise. */
function harness(options: { intervalMs?: number; purge?: (control: { stopping: () => boolean }) => Promise<PurgeCounts> } = {}) {
  const lines: { level: string; details: object; message: string }[] = [];
  const logger = {
    info: (details: object, message: string) => void lines.push({ level: 'info', details, message }),
    error: (details: object, message: string) => void lines.push({ level: 'error', details, message }),
  };
  const purge = jest.fn(options.purge ?? (async () => COUNTS));
  const metrics = createMetrics();
  const janitor = new Janitor({ purge, intervalMs: options.intervalMs ?? 1000, firstRunDelayMs: 50, logger, metrics });
  return { janitor, purge, lines, metrics };
}

describe('Janitor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs first after the start delay, then every interval, counting and logging; stop() ends it', async () => {
    const { janitor, purge, lines, metrics } = harness();
    janitor.start();
    await jest.advanceTimersByTimeAsync(49);
    expect(purge).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(purge).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(2000);
    expect(purge).toHaveBeenCalledTimes(3);
    expect(lines[0]).toMatchObject({ level: 'info', message: 'janitor: purged expired rows', details: COUNTS });
    const text = await metrics.registry.getSingleMetricAsString('svc_purged_rows_total');
    expect(text).toContain('svc_purged_rows_total{kind="refresh_token"} 9');
    expect(text).toContain('svc_purged_rows_total{kind="session"} 6');
    expect(text).toContain('svc_purged_rows_total{kind="outbox_mail"} 0');
    expect(text).toContain('svc_purged_rows_total{kind="oidc_artifact"} 12');
    expect(text).toContain('svc_purged_rows_total{kind="known_device"} 15');

    await janitor.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(purge).toHaveBeenCalledTimes(3);
  });

  it('logs a failed run, never throws it, and runs again at the next interval', async () => {
    let calls = 0;
    const { janitor, purge, lines } = harness({
      purge: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database away');
        return COUNTS;
      },
    });
    janitor.start();
    await jest.advanceTimersByTimeAsync(50);
    expect(lines).toEqual([{ level: 'error', details: { err: expect.objectContaining({ message: 'database away' }) }, message: 'janitor: purge failed; the next run tries again' }]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(purge).toHaveBeenCalledTimes(2);
    expect(lines[1]).toMatchObject({ level: 'info', details: COUNTS });
    await janitor.stop();
  });

  it('stop() waits for the run in flight', async () => {
    let finish: (counts: PurgeCounts) => void = () => {};
    const { janitor } = harness({ purge: () => new Promise((resolve) => (finish = resolve)) });
    janitor.start();
    await jest.advanceTimersByTimeAsync(50);
    let stopped = false;
    const stopping = janitor.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish(COUNTS);
    await stopping;
    expect(stopped).toBe(true);
  });

  it('stop() tells the run in flight to start no further batch', async () => {
    let told: (() => boolean) | undefined;
    let finish: (() => void) | undefined;
    const { janitor } = harness({
      purge: ({ stopping }) => {
        told = stopping;
        return new Promise((resolve) => (finish = () => resolve(COUNTS)));
      },
    });
    janitor.start();
    await jest.advanceTimersByTimeAsync(50);
    expect(told?.()).toBe(false);
    const stopped = janitor.stop();
    expect(told?.()).toBe(true);
    finish?.();
    await stopped;
  });

  it('does nothing with an interval of 0 (SVC_PURGE_INTERVAL_SECONDS=0)', async () => {
    const { janitor, purge } = harness({ intervalMs: 0 });
    janitor.start();
    await jest.advanceTimersByTimeAsync(10 * 60_000);
    expect(purge).not.toHaveBeenCalled();
  });

  it('starts a minute after start plus up to a minute of jitter', () => {
    expect(firstRunDelayMs(() => 0)).toBe(60_000);
    expect(firstRunDelayMs(() => 0.5)).toBe(90_000);
    expect(firstRunDelayMs(() => 0.999_999)).toBeLessThan(120_000);
  });
});
