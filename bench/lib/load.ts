import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** What one autocannon run reports, reduced to the figures the tables and chart use. */
export interface LoadResult {
  connections: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Socket errors and timeouts plus answers other than the expected status. */
  errors: number;
  requests: number;
  /**
   * Rows whose requests leave work behind (a mail to deliver): the answers' own rate, and how long
   * the work took to finish after the last answer. `rps` is then the rate over both (see Bench.row).
   */
  answeredRps?: number;
  drainMs?: number;
}

/** One request as autocannon sends it; `body` is JSON text. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  connections: number;
  seconds: number;
  /** Called for every request: lets a row send a fresh e-mail or refresh token each time. */
  next: () => RequestSpec;
  /** Told every answer (status, body text): a refresh row takes the successor token from it. */
  onResponse?: (status: number, body: string) => void;
  /** Status that counts as success (others are errors). Default: any 2xx. */
  expectStatus?: number;
  /** Resolves once the work the requests left behind is done (every mail they queued delivered). */
  drained?: () => Promise<void>;
}

/**
 * Drives `url` with autocannon (programmatic API) on loopback. Every request is built by `next()`:
 * autocannon calls setupRequest before each request, and calls onResponse before the same
 * connection builds its next one, so a row can chain state from answers to requests.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  let unexpected = 0;
  const answeredAt: number[] = [];
  const latencies: number[] = [];
  const instance: PromiseLike<autocannon.Result> & Pick<NodeJS.EventEmitter, 'on'> = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    // Hash-bound rows at 50 connections queue for seconds; a timeout would be our artefact.
    timeout: 30,
    requests: [
      {
        setupRequest: (request) => {
          const spec = options.next();
          const headers = { ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}), ...spec.headers };
          return { ...request, method: spec.method, path: spec.path, headers, body: spec.body };
        },
        onResponse: (status, body) => {
          const ok = options.expectStatus === undefined ? status >= 200 && status < 300 : status === options.expectStatus;
          if (!ok) unexpected += 1;
          answeredAt.push(performance.now());
          options.onResponse?.(status, body);
        },
      },
    ],
  }) as never;
  // autocannon's histogram keeps whole milliseconds: a /me at p50 3 ms against 4 ms would read as
  // +33 %. The answers' own times (fractional ms, successful answers as autocannon counts them) don't.
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await instance;
  latencies.sort((a, b) => a - b);
  return {
    connections: options.connections,
    seconds: options.seconds,
    rps: round(steadyRate(answeredAt, options.connections, result.duration)),
    p50: latencies.length ? round(percentile(latencies, 0.5)) : result.latency.p50,
    p99: latencies.length ? round(percentile(latencies, 0.99)) : result.latency.p99,
    errors: result.errors + result.timeouts + unexpected,
    requests: result.requests.total,
  };
}

/** The value at fraction `q` of sorted `values` (nearest rank). */
export function percentile(values: number[], q: number): number {
  return values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))];
}

/**
 * Answers per second once every connection has had its first answer: the ramp at the start (no
 * answer for one latency) would otherwise cost a hash-bound row at 13/s about a tenth of its rate.
 * (autocannon's own average counts whole seconds from the start.)
 */
function steadyRate(answeredAt: number[], connections: number, seconds: number): number {
  // Too few answers for a steady window (a hash-bound row at 50 connections): answers / duration.
  if (answeredAt.length <= 2 * connections) return answeredAt.length / seconds;
  const window = (answeredAt[answeredAt.length - 1] - answeredAt[connections]) / 1000;
  return window > 0 ? (answeredAt.length - 1 - connections) / window : 0;
}

/** Runs several loads at once (the mixed row: logins saturating the hash pool while /me is asked). */
export function runConcurrently(loads: LoadOptions[]): Promise<LoadResult[]> {
  return Promise.all(loads.map(runLoad));
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function round(value: number, digits = 1): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** A queue of bearer secrets shared by every connection of a row; see refresh rows in rows.ts. */
export class TokenQueue {
  private readonly items: string[] = [];
  private head = 0;

  constructor(initial: Iterable<string> = []) {
    for (const item of initial) this.items.push(item);
  }

  push(item: string): void {
    this.items.push(item);
  }

  /** The oldest unused token, or a dead one (the request then fails and is counted as an error). */
  take(): string {
    if (this.head >= this.items.length) return 'exhausted-token-queue';
    const item = this.items[this.head];
    this.head += 1;
    if (this.head > 4096) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  get size(): number {
    return this.items.length - this.head;
  }
}

/**
 * Waits until the machine's CPUs are mostly idle (at most `maxSeconds`). A hash-bound row ends with
 * requests still queued in the server (closing the connection cancels nothing), e.g. 50 logins of
 * ~0.3 s of bcrypt each: without this the next row would share the cores with them.
 */
export async function settle(maxSeconds = 10): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000;
  while (Date.now() < deadline) if ((await cpuBusyShare(250)) < QUIET_SHARE) return;
}

/** Below this share of all CPUs' time busy, the machine counts as quiet. */
export const QUIET_SHARE = 0.25;

/** The share (0..1) of all CPUs' time spent busy over the next `windowMs`, read from /proc/stat. */
export async function cpuBusyShare(windowMs: number): Promise<number> {
  const before = readFileSync('/proc/stat', 'utf8');
  await new Promise((resolve) => setTimeout(resolve, windowMs));
  return busyShareBetween(before, readFileSync('/proc/stat', 'utf8'));
}

/**
 * The busy share of all CPUs between two readings of /proc/stat: its first line is the sum over
 * the CPUs of user nice system idle iowait irq softirq steal ... in ticks; idle and iowait are not
 * busy. 0 when no tick passed.
 */
export function busyShareBetween(before: string, after: string): number {
  const [a, b] = [cpuTimes(before), cpuTimes(after)];
  const total = b.total - a.total;
  return total > 0 ? (b.busy - a.busy) / total : 0;
}

function cpuTimes(stat: string): { busy: number; total: number } {
  const fields = stat.split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - fields[3] - fields[4], total };
}
