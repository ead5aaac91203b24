// CPU time of processes and their threads, read from /proc (Linux): what `tsx bench/cpu-per-request.ts`
// reports per request.
import { readdirSync, readFileSync } from 'node:fs';

/** µs per clock tick: /proc counts CPU time in ticks of USER_HZ, 100 a second on Linux. */
export const TICK_US = 10_000;

/** utime and stime of one /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat file, in ticks. */
function statTicks(file: string, systemOnly: boolean): number {
  // Fields 14 and 15; the name before them, in parentheses, may itself hold spaces.
  const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
  return (systemOnly ? 0 : Number(fields[11])) + Number(fields[12]);
}

/**
 * utime + stime of a process in clock ticks; with `mainThread`, of its main thread only
 * (/proc/<pid>/task/<pid>/stat), without the libuv pool, V8's helper threads and worker threads;
 * with `systemOnly`, stime alone (the kernel's time in the process's system calls: sockets, files).
 */
export function ticks(pid: number, mainThread = false, systemOnly = false): number {
  return statTicks(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, systemOnly);
}

/** utime + stime of `pids` together, in ticks; a process that has ended counts nothing. */
export function ticksOf(pids: readonly number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += ticks(pid);
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

/**
 * A process's CPU time in ticks by kind of thread: `main` for its main thread, every other thread
 * under its name (Node 24 names them `V8Worker` for V8's helpers, the garbage collector's
 * included, and `libuv-worker` for the thread pool; older Nodes leave them `node`). Threads that
 * ended before the reading are not in it.
 */
export function threadTicks(pid: number): Map<string, number> {
  const byKind = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const kind = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      byKind.set(kind, (byKind.get(kind) ?? 0) + statTicks(`/proc/${pid}/task/${tid}/stat`, false));
    } catch {
      // the thread ended meanwhile
    }
  }
  return byKind;
}

/** `spent` ticks over `requests` requests, in whole µs a request. */
export function usPerRequest(spent: number, requests: number): number {
  return Math.round((spent * TICK_US) / requests);
}

/**
 * µs per request of each kind of thread between two `threadTicks` readings, largest first; a kind
 * that did not run in between is left out, one that started in between counts from zero.
 */
export function threadCpuPerRequest(before: Map<string, number>, after: Map<string, number>, requests: number): Record<string, number> {
  const spent = [...after].map(([kind, total]) => [kind, usPerRequest(total - (before.get(kind) ?? 0), requests)] as const);
  return Object.fromEntries(spent.filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]));
}

/** The processes for which `matches(pid)` holds; one that ends while it is asked is left out. */
export function pidsWhere(matches: (pid: number) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (matches(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The processes whose name (/proc/<pid>/comm) is `name`: e.g. `redis-server`. */
export function pidsNamed(name: string): number[] {
  return pidsWhere((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === name);
}
