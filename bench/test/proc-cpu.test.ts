import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pidsNamed, pidsWhere, threadCpuPerRequest, threadTicks, TICK_US, ticks, ticksOf } from '../lib/proc-cpu';

/** Keeps this thread busy for `ms`. */
function spin(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) Math.sqrt(Math.random());
}

describe('proc-cpu', () => {
  it("reads this process's main thread apart from its other threads, and its time grows with work", () => {
    const before = threadTicks(process.pid);
    const mainBefore = ticks(process.pid, true);
    spin(300);
    const after = threadTicks(process.pid);
    // 300 ms of CPU is 30 ticks; a loaded machine may take some of them away.
    expect((after.get('main') ?? 0) - (before.get('main') ?? 0)).toBeGreaterThanOrEqual(10);
    // The same thread as `ticks(pid, true)` reads, read a moment later.
    const mainAfter = ticks(process.pid, true);
    expect(mainAfter - (after.get('main') ?? 0)).toBeGreaterThanOrEqual(0);
    expect(mainAfter - (after.get('main') ?? 0)).toBeLessThanOrEqual(2);
    expect(mainAfter).toBeGreaterThan(mainBefore);
    // libuv's pool, V8's helpers and jest's own threads are other kinds: the process has more than one.
    expect(after.size).toBeGreaterThan(1);
    expect([...after.values()].reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(ticks(process.pid) + after.size);
  });

  it('gives µs per request for each kind that ran, largest first, counting a new kind from zero', () => {
    const before = new Map([
      ['main', 100],
      ['V8Worker', 10],
      ['libuv-worker', 5],
    ]);
    const after = new Map([
      ['main', 300],
      ['V8Worker', 60],
      ['libuv-worker', 5],
      ['node', 2],
    ]);
    expect(threadCpuPerRequest(before, after, 1000)).toEqual({ main: (200 * TICK_US) / 1000, V8Worker: (50 * TICK_US) / 1000, node: (2 * TICK_US) / 1000 });
    expect(Object.keys(threadCpuPerRequest(before, after, 1000))).toEqual(['main', 'V8Worker', 'node']);
  });

  it('finds processes by name, and sums their time with an ended one counting nothing', () => {
    const name = readFileSync('/proc/self/comm', 'utf8').trim();
    expect(pidsNamed(name)).toContain(process.pid);
    expect(pidsNamed('no-such-process-name')).toEqual([]);
    expect(pidsWhere((pid) => pid === process.pid)).toEqual([process.pid]);
    const ended = spawnSync(process.execPath, ['-e', '']).pid;
    spin(50);
    const mine = ticks(process.pid);
    expect(ticksOf([ended])).toBe(0);
    expect(ticksOf([process.pid, ended])).toBeGreaterThanOrEqual(mine);
  });
});
