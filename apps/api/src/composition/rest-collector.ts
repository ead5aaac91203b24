import { readFileSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from 'pino';

/**
 * Gives the memory of a burst back once the process falls quiet.
 *
 * V8 collects only when it allocates, so a server that goes quiet after a burst keeps its heap as
 * the burst left it: the young generation grown to its maximum (about 100 MB on Node 24) and the
 * old generation full of promoted garbage, since the first full collection comes late on a machine
 * with much memory. Even a full collection keeps the freed pages in V8's pool on Node 22 and later;
 * only a memory-reducing one (what V8 does on a low-memory notification) returns them to the
 * system. bench/README.md measured the built server holding twice its idle RSS a minute after a
 * load ended, nearly all of it garbage (docs/decisions.md, "Memory at rest").
 *
 * Every `intervalMs` the thread's busy share of the interval is read: the CPU time it used over the
 * interval's length ({@link threadCpuClock}), or where no such clock can be read, the event loop's
 * utilisation. When it was below `quietBelow` and V8's committed heap has grown by `minGrowthBytes`
 * since the last collection (or none has run yet: start-up leaves garbage too), one
 * memory-reducing collection runs. It stops the thread for tens of milliseconds, only when nothing
 * was being served. Under load nothing happens; at rest with only health checks nothing grows, so
 * nothing runs again.
 *
 * CPU time rather than utilisation: utilisation is wall time spent in callbacks, which grows while
 * the thread waits for a core that other processes hold, or blocks inside a callback. In CI, under
 * a full parallel test run, a fresh server read 4 to 15 % busy that way (against the 2 % line) for
 * over 30 s; read so, a server at rest keeps a burst's memory for as long as that lasts
 * (docs/decisions.md, "Memory at rest").
 */
export interface RestCollectorOptions {
  logger: Logger;
  /** How often utilisation is read and the decision taken. Default 2000 ms. */
  intervalMs?: number;
  /** The event loop's utilisation (0..1) over an interval under which the process counts as quiet. Default 0.02. */
  quietBelow?: number;
  /** Growth of V8's committed heap since the last collection that makes another worth its pause. Default 16 MiB. */
  minGrowthBytes?: number;
  /** The collection; default V8's own, memory-reducing where the running Node offers it ({@link memoryReducingCollection}). */
  collect?: () => void;
  /** V8's committed heap in bytes; default `total_physical_size` of `v8.getHeapStatistics()`. */
  heapBytes?: () => number;
  /**
   * The watched thread's CPU time so far in µs, read on that thread; default {@link threadCpuClock}.
   * Null reads the event loop's utilisation instead.
   */
  cpuMicros?: (() => number) | null;
}

export interface RestCollector {
  /** Collections run so far. */
  readonly collections: number;
  stop(): void;
}

/**
 * Starts watching (see {@link RestCollectorOptions}); answers null, having logged why, when V8's
 * collector cannot be reached in this process.
 */
export function startRestCollector(options: RestCollectorOptions): RestCollector | null {
  const collect = options.collect ?? memoryReducingCollection();
  if (!collect) {
    options.logger.warn('memory is not released at rest: V8 did not expose its collector');
    return null;
  }
  const { intervalMs = 2000, quietBelow = 0.02, minGrowthBytes = 16 * 1024 * 1024 } = options;
  const heapBytes = options.heapBytes ?? (() => getHeapStatistics().total_physical_size);
  const busyShare = busyShareReader(options.cpuMicros === undefined ? threadCpuClock() : options.cpuMicros);
  let collectedAt: number | null = null; // the committed heap right after the last collection
  let collections = 0;
  const timer = setInterval(() => {
    if (busyShare() >= quietBelow) return; // busy: the heap is not even read
    const before = heapBytes();
    if (collectedAt !== null && before - collectedAt < minGrowthBytes) return;
    const started = performance.now();
    collect();
    collectedAt = heapBytes();
    collections += 1;
    options.logger.debug({ ms: Math.round(performance.now() - started), heapMbBefore: mb(before), heapMbAfter: mb(collectedAt) }, 'released memory at rest');
  }, intervalMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A reader of the thread's busy share (0..1) since the previous reading: its CPU time over the wall
 * time between the two readings when `cpuMicros` is given, else the event loop's utilisation.
 */
function busyShareReader(cpuMicros: (() => number) | null): () => number {
  if (!cpuMicros) {
    let last: EventLoopUtilization = performance.eventLoopUtilization();
    return () => {
      const now = performance.eventLoopUtilization();
      const { utilization } = performance.eventLoopUtilization(now, last);
      last = now;
      return utilization;
    };
  }
  let lastCpu = cpuMicros();
  let lastWall = performance.now();
  return () => {
    const cpu = cpuMicros();
    const wall = performance.now();
    const share = (cpu - lastCpu) / Math.max(1, (wall - lastWall) * 1000);
    lastCpu = cpu;
    lastWall = wall;
    return share;
  };
}

/** Linux's clock ticks per second in /proc (USER_HZ), 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/**
 * The calling thread's CPU time in µs: Node's `process.threadCpuUsage()` (23.9 and later), else on
 * Linux the thread's user and system ticks in /proc/thread-self/stat (10 ms steps, fine against a
 * 2 % line over 2 s); null where neither can be read.
 */
export function threadCpuClock(): (() => number) | null {
  const own = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  if (typeof own === 'function') {
    return () => {
      const { user, system } = own.call(process);
      return user + system;
    };
  }
  if (process.platform !== 'linux') return null;
  const read = () => {
    // The fields after the name (which may hold spaces and parentheses), from the third: utime and stime are the 14th and 15th.
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ').pop()?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    if (!Number.isFinite(ticks)) throw new Error('unreadable /proc/thread-self/stat');
    return (ticks * 1_000_000) / TICKS_PER_SECOND;
  };
  try {
    read();
    return read;
  } catch {
    return null;
  }
}

/**
 * V8's collector, taken the way jest's `--logHeapUsage` takes it: the flag that exposes it is set
 * for a moment, a fresh context reads it, and the flag is unset again, so the service's own global
 * never gains `gc`. On Node 22 and later a full collection keeps the freed pages pooled, and the
 * memory-reducing flavour ("last-resort", as on a low-memory notification) gives them back; Node
 * 20's V8 knows no flavour, and its full collection gives them back itself. A process started with
 * `--expose-gc` has it already. Null when the flag is refused.
 */
function memoryReducingCollection(): (() => void) | null {
  const gc = exposedCollector();
  if (!gc) return null;
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 22 ? () => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }) : () => gc();
}

type Collector = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** `gc` of a process started with --expose-gc, else one read from a fresh context. */
function exposedCollector(): Collector | null {
  const global = (globalThis as { gc?: unknown }).gc;
  if (typeof global === 'function') return global as Collector;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collector) : null;
  } catch {
    return null;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

function mb(bytes: number): number {
  return Math.round(bytes / 104857.6) / 10;
}
