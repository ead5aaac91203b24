import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { threadCpuClock } from '../src/composition/rest-collector';

const root = resolve(__dirname, '../../..');

/** The Nodes the collector is run on, each named, with a function that finds its binary. */
const NODES: Array<[string, () => Promise<string>]> = [
  ['this Node', async () => process.execPath],
  [
    "the images' Node",
    async () => {
      const { imageNode } = (await import(join(root, 'scripts', 'lib', 'image-node.mjs'))) as { imageNode(repo: string): string };
      return imageNode(root);
    },
  ],
];

describe('the rest collector', () => {
  it("reads the calling thread's CPU time where Node has the call, and on Linux from /proc", () => {
    const clock = threadCpuClock();
    const expected = process.platform === 'linux' || typeof (process as { threadCpuUsage?: unknown }).threadCpuUsage === 'function';
    expect(clock !== null).toBe(expected);
    if (!clock) return;
    // Work until the clock has counted 20 ms, or 5 s have passed. A jest worker's other threads
    // share its process's CPU and a busy machine stretches the wall clock, so neither times the
    // work here; the script below checks the figures in a process of its own.
    const before = clock();
    const deadline = performance.now() + 5000;
    while (clock() - before < 20_000 && performance.now() < deadline);
    expect((clock() - before) / 1000).toBeGreaterThanOrEqual(20);
  });

  // The collector's decisions, timed in a process of their own: the event loop it watches must be
  // the test's alone. A jest worker's loop also carries whatever earlier test files left running,
  // and CI runs found it without a quiet 100 ms for seconds on end. The script prints the count of
  // collections at each step; `heap` is the committed heap the collector is shown.
  const DECISIONS_SCRIPT = `
    const { startRestCollector, threadCpuClock } = require(process.argv[1]);
    const { waitUntil } = require(process.argv[2]);
    const silent = { debug() {}, warn() {} };
    const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
    const waitFor = (condition) => waitUntil(condition, 20000);
    const MB = 1024 * 1024;
    (async () => {
      // The clock the collector reads: 200 ms of the process's CPU spent working (timed by CPU, as a
      // busy machine stretches the wall clock), then 200 ms held without running.
      const clock = threadCpuClock();
      const cell = new Int32Array(new SharedArrayBuffer(4));
      const t0 = clock();
      const start = process.cpuUsage();
      for (let used = process.cpuUsage(start); used.user + used.system < 200000; used = process.cpuUsage(start));
      const t1 = clock();
      Atomics.wait(cell, 0, 0, 200);
      const cpuMs = { working: Math.round((t1 - t0) / 1000), held: Math.round((clock() - t1) / 1000) };

      let heap = 100 * MB;
      let grown = 0;
      let collector = startRestCollector({ logger: silent, intervalMs: 50, collect: () => void (grown += 1), heapBytes: () => heap });
      await waitFor(() => grown > 0);
      await sleep(300);
      const afterStart = grown;
      heap += 8 * MB;
      await sleep(300);
      const afterSmallGrowth = grown;
      heap += 10 * MB;
      await waitFor(() => grown > 1);
      const growth = { afterStart, afterSmallGrowth, afterGrowth: grown, counted: collector.collections };
      collector.stop();

      let busy = 0;
      collector = startRestCollector({ logger: silent, intervalMs: 100, collect: () => void (busy += 1), heapBytes: () => 100 * MB });
      // About 80 % busy: 40 ms of work every 50 ms.
      const spin = setInterval(() => { const until = performance.now() + 40; while (performance.now() < until); }, 50);
      await sleep(800);
      clearInterval(spin);
      const whileBusy = busy;
      await waitFor(() => busy > 0);
      collector.stop();

      let held = 0;
      collector = startRestCollector({ logger: silent, intervalMs: 100, collect: () => void (held += 1), heapBytes: () => 100 * MB });
      // About 80 % of the time inside a callback without running: the thread held (Atomics.wait), as
      // one is that other processes keep from a core. Its own CPU time does not grow: quiet.
      const hold = setInterval(() => Atomics.wait(cell, 0, 0, 40), 50);
      await sleep(800);
      clearInterval(hold);
      const whileHeld = held;
      collector.stop();

      // Without a CPU clock (a platform with neither), the event loop's utilisation: held reads busy.
      let heldByUtilisation = 0;
      collector = startRestCollector({ logger: silent, intervalMs: 100, collect: () => void (heldByUtilisation += 1), heapBytes: () => 100 * MB, cpuMicros: null });
      const holdAgain = setInterval(() => Atomics.wait(cell, 0, 0, 40), 50);
      await sleep(800);
      clearInterval(holdAgain);
      const whileHeldByUtilisation = heldByUtilisation;
      await waitFor(() => heldByUtilisation > 0);
      collector.stop();

      let stopped = 0;
      startRestCollector({ logger: silent, intervalMs: 50, collect: () => void (stopped += 1), heapBytes: () => 100 * MB }).stop();
      await sleep(300);
      console.log(JSON.stringify({ version: process.version, cpuMs, growth, load: { whileBusy, onceQuiet: busy, whileHeld, whileHeldByUtilisation, onceReleased: heldByUtilisation }, stopped }));
    })();`;

  // On this Node (20 in CI: the thread's CPU time read from /proc) and on the images' (24: Node's own call).
  it.each(NODES)(
    'collects once the process is quiet, then only after the heap has grown again; nothing while the event loop is busy working, nor after stop(), on %s',
    async (_name, nodeOf) => {
      const { version, cpuMs, growth, load, stopped } = runJsonScript<{
        version: string;
        cpuMs: Record<string, number>;
        growth: Record<string, number>;
        load: Record<string, number>;
        stopped: number;
      }>(await nodeOf(), DECISIONS_SCRIPT, [join(root, 'apps/api/src/composition/rest-collector.ts'), join(root, 'packages/adapters-redis/src/testing/wait-until.ts')], 60_000);
      // The figures ride along so that a failure shows them (and on which Node).
      expect({ version, cpuMs, counted: cpuMs.working >= 150 && cpuMs.working <= 220 && cpuMs.held <= 30 }).toEqual({ version, cpuMs, counted: true });
      expect(growth).toEqual({
        afterStart: 1, // start-up's garbage, then nothing has grown
        afterSmallGrowth: 1, // 8 MB: below the 16 MB that makes a pause worth it
        afterGrowth: 2,
        counted: 2,
      });
      // Busy is the thread's own CPU time: a loop held without running (descheduled on a busy machine) is quiet.
      // The event loop's utilisation (where no CPU clock can be read) counts the held time as busy.
      expect(load).toEqual({ whileBusy: 0, onceQuiet: 1, whileHeld: 1, whileHeldByUtilisation: 0, onceReleased: 1 });
      expect(stopped).toBe(0); // stop() before the first quiet interval: no collection
    },
    60_000,
  );

  // The real collector in a process of its own: 300 MB of garbage, then quiet. Without the
  // collector V8 keeps it (measured on Node 20 and 24: the RSS does not move in 6 s).
  const SCRIPT = `
    const { startRestCollector } = require(process.argv[1]);
    const rss = () => Number(/Rss:\\s+(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/smaps_rollup', 'utf8'))[1]) / 1024;
    let garbage = [];
    for (let i = 0; i < 3e6; i += 1) garbage.push({ i, text: 'x' + i });
    garbage = null;
    const full = rss();
    const report = (collected) => {
      console.log(JSON.stringify({ full, after: rss(), collected }));
      process.exit(0);
    };
    // With the collector: read 2.5 s after its collection (Node 20 unmaps on a thread of its own),
    // or give up after 10 s. Without: read 4 s on.
    const logger = { debug() { setTimeout(() => report(true), 2500); }, warn(...args) { console.error(...args); } };
    if (process.argv[2] === 'on') {
      startRestCollector({ logger, intervalMs: 200 });
      setTimeout(() => report(false), 10000);
    } else setTimeout(() => report(false), 4000);`;

  function runScript(node: string, mode: 'on' | 'off'): { full: number; after: number; collected: boolean } {
    return runJsonScript(node, SCRIPT, [join(root, 'apps/api/src/composition/rest-collector.ts'), mode], 60_000);
  }

  it.each(NODES)(
    'gives the garbage of a burst back to the system on %s',
    async (_name, nodeOf) => {
      const node = await nodeOf();
      const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
      const kept = runScript(node, 'off');
      const released = runScript(node, 'on');
      // The figures ride along so that a failure shows them. Without the collector V8 gives back
      // some of it on its own when the machine is busy (its background sweeping finishes after the
      // first reading); with it, the process holds less than half of what the same process keeps.
      expect({ version, kept, released, releasedMost: released.after < released.full * 0.4 && released.after < kept.after * 0.5 }).toEqual({
        version,
        kept,
        released,
        releasedMost: true,
      });
    },
    120_000,
  );
});

describe('createSvcServer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-rest-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  // A server in a process of its own, so that the event loop the collector watches is the
  // server's alone (a jest worker's loop also carries whatever earlier test files left running).
  // It prints the collector's log lines once one appears or `ms` have passed, and how long it took.
  const SERVER_SCRIPT = `
    const { Writable } = require('node:stream');
    const { createSvcServer, createLogger } = require(process.argv[1]);
    const { threadCpuClock } = require(process.argv[2]);
    const [dataDir, setting, ms] = process.argv.slice(3);
    const lines = [];
    const destination = new Writable({ write(chunk, _e, done) { const { msg } = JSON.parse(String(chunk)); if (msg === 'released memory at rest') lines.push(msg); done(); } });
    (async () => {
      const config = { dataDir, bcryptCost: 4, ...(setting === 'off' ? { releaseMemoryAtRest: false } : {}) };
      const server = await createSvcServer(config, { logger: createLogger({ level: 'debug', destination }) });
      const started = performance.now();
      // The thread's CPU share of each 2 s, as the collector reads it, and the event loop's
      // utilisation, which counts time waiting for a core too: shown when it fails.
      const busy = [];
      const clock = threadCpuClock();
      let last = { elu: performance.eventLoopUtilization(), cpu: clock(), wall: performance.now() };
      const watch = setInterval(() => {
        const now = { elu: performance.eventLoopUtilization(), cpu: clock(), wall: performance.now() };
        const elu = performance.eventLoopUtilization(now.elu, last.elu).utilization;
        busy.push({ cpu: Number(((now.cpu - last.cpu) / ((now.wall - last.wall) * 1000)).toFixed(3)), elu: Number(elu.toFixed(3)) });
        last = now;
      }, 2000);
      await server.start({ port: 0 });
      while (performance.now() - started < Number(ms) && lines.length === 0) await new Promise((done) => setTimeout(done, 100));
      clearInterval(watch);
      await server.stop();
      console.log(JSON.stringify({ lines, ms: Math.round(performance.now() - started), busy }));
    })();`;

  function collectionsAfterStart(setting: 'on' | 'off', ms: number): { lines: string[]; ms: number; busy: Array<{ cpu: number; elu: number }> } {
    const modules = [join(root, 'apps/api/src/index.ts'), join(root, 'apps/api/src/composition/rest-collector.ts')];
    return runJsonScript(process.execPath, SERVER_SCRIPT, [...modules, dir, setting, String(ms)], ms + 30_000);
  }

  it('releases the memory of its start-up once quiet, while it listens; SVC_RELEASE_MEMORY_AT_REST=false turns that off', () => {
    // Alone it comes within about 10 s (start-up's own work first). Quiet is the thread's CPU time,
    // which other test files do not inflate as they did the event loop's utilisation, the earlier
    // rule (under a full parallel run that read 4 to 15 % busy and kept quiet away past 30 s); the
    // 90 s bound is kept for a machine that slows the start-up itself.
    const on = collectionsAfterStart('on', 90_000);
    expect(on).toEqual({ lines: ['released memory at rest'], ms: on.ms, busy: on.busy }); // the figures show on failure
    // Off: half as long again as the server with the collector needed, and at least three intervals
    // (whole ms: spawnSync refuses a fractional timeout).
    const off = collectionsAfterStart('off', Math.max(6500, Math.round(on.ms * 1.5)));
    expect(off.lines).toEqual([]);
  }, 300_000);
});

/** Runs `script` under tsx on `node` and answers the JSON object its last line of output prints. */
function runJsonScript<T>(node: string, script: string, args: string[], timeout: number): T {
  const run = spawnSync(node, ['--import', 'tsx', '-e', script, ...args], { cwd: root, encoding: 'utf8', timeout });
  if (run.status !== 0) throw new Error(`the script failed (${run.status}): ${run.stderr.slice(-1000)}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as T;
}
