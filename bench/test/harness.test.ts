import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeProfile } from '../lib/cpuprofile';
import { Bench, type BenchResults, type RowRecord } from '../lib/context';
import { busyShareBetween, round, runLoad, TokenQueue } from '../lib/load';
import { loginAloneInTurn } from '../lib/login-alone';
import { medianRows } from '../lib/median-rows';
import { MILLION_SLICES } from '../lib/million';
import { turns } from '../lib/turns';
import { pendingWriteBytes } from '../lib/quiet-disk';

const ROOT = join(__dirname, '..', '..');

/** A Bench of 1 s rows at 2 connections (the row count of its one-point sweep) that prints nothing. */
function quietBench(): Bench {
  const args = { seconds: 1, connections: 2, sweep: [2] } as unknown as ConstructorParameters<typeof Bench>[0];
  const bench = new Bench(args, { rows: [], sweep: {} } as unknown as BenchResults);
  bench.log = () => undefined;
  return bench;
}

/** A local HTTP server for the enclosing suite: listening before its tests, closed after them. */
function serveDuringSuite(handler: RequestListener): { url: string } {
  const served = { url: '' };
  let server: Server;
  beforeAll(async () => {
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return served;
}

describe('runLoad (autocannon, figures from the answers themselves)', () => {
  const served = serveDuringSuite((req, res) => {
    if (req.url === '/bad') return void res.writeHead(500).end('{}');
    const ms = req.url === '/slow' ? 20 : 2;
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"path":"${req.url}"}`), ms);
  });
  let url: string;
  beforeAll(() => {
    url = served.url;
  });

  it('counts requests, rate and latency, builds each request with next() and hands every answer to onResponse', async () => {
    let built = 0;
    const answers: string[] = [];
    const result = await runLoad({
      url,
      connections: 2,
      seconds: 1,
      next: () => ({ method: 'GET', path: `/n${(built += 1)}` }),
      onResponse: (status, body) => answers.push(`${status} ${body}`),
    });
    expect(result.errors).toBe(0);
    expect(result.requests).toBeGreaterThan(10);
    expect(result.rps).toBeGreaterThan(10);
    // Every answer waited the server's 2 ms timer; p99 is never below p50.
    expect(result.p50).toBeGreaterThanOrEqual(1.9);
    expect(result.p99).toBeGreaterThanOrEqual(result.p50);
    expect(answers[0]).toBe('200 {"path":"/n1"}');
    expect(built).toBeGreaterThanOrEqual(result.requests);
  });

  it('counts the work a row leaves behind: its rate runs until drained() resolves, over the load and the wait', async () => {
    const bench = quietBench();
    const next = () => ({ method: 'GET' as const, path: '/ok' });
    const plain = await bench.row('test', 'plain', url, () => ({ next }));
    expect(plain.result.drainMs).toBeUndefined();
    let asked = 0;
    const drained = () => new Promise<void>((resolve) => setTimeout(() => resolve(void (asked += 1)), 1000));
    const left = await bench.row('test', 'leaves work', url, () => ({ next, drained }), { ceiling: { name: 'c', perSecond: 1 } });
    expect(asked).toBe(1);
    expect(left.result.drainMs).toBeGreaterThanOrEqual(990);
    // One second of load and one of waiting: about half the answers' own rate, and the ratio from it.
    expect(left.result.rps / left.result.answeredRps!).toBeGreaterThan(0.45);
    expect(left.result.rps / left.result.answeredRps!).toBeLessThan(0.51);
    expect(left.ratio).toBeCloseTo(left.result.rps, 0);
  }, 60_000);

  it('warms a single row up when asked: an untimed second of load, drained, before the measured one', async () => {
    const bench = quietBench();
    const sent: number[] = [];
    const drains: number[] = [];
    let load = 0;
    const make = () => {
      load += 1;
      const mine = load;
      sent[mine] = 0;
      return { next: () => ((sent[mine] += 1), { method: 'GET' as const, path: '/ok' }), drained: async () => void drains.push(mine) };
    };
    const cold = await bench.row('test', 'cold', url, make);
    expect(load).toBe(1);
    const warm = await bench.row('test', 'warm', url, make, { warmUp: true });
    expect(load).toBe(3);
    expect(drains).toEqual([1, 2, 3]);
    expect(sent[2]).toBeGreaterThan(10); // the warm-up's own load
    // The measured figures are the second load's alone.
    expect(warm.result.requests).toBeLessThanOrEqual(sent[3]);
    expect(cold.result.requests).toBeLessThanOrEqual(sent[1]);
  }, 60_000);

  it('divides again every row of a ceiling measured higher the second time, also rows that were given one ceiling object', async () => {
    const bench = quietBench();
    const at = (path: string) => () => ({ next: () => ({ method: 'GET' as const, path }) });
    // The ceiling's first measurement is held back (20 ms an answer), its second is not (2 ms).
    await bench.series('ceiling', 'minimal', 'ceiling', url, at('/slow'));
    const first = bench.results.sweep.ceiling[0].rps;
    // Two rows divided by one ceiling object, as the mail rows are.
    const shared = bench.ceilingFrom('the ceiling', 'ceiling')(2);
    const rows = [await bench.row('test', 'a', url, at('/ok'), { ceiling: shared }), await bench.row('test', 'b', url, at('/ok'), { ceiling: shared })];
    await bench.remeasure('ceiling', url, at('/ok'), ['the ceiling']);
    const again = bench.results.sweep.ceiling[0].rps;
    expect(again).toBeGreaterThan(first * 2);
    for (const row of rows) {
      expect(row.ceiling?.perSecond).toBe(again);
      expect(row.ratio).toBeCloseTo(row.result.rps / again, 3);
    }
  }, 60_000);

  it('records a series as the row at the row connection count, or charts it only when the row is taken in turn', async () => {
    const bench = quietBench();
    const make = () => ({ next: () => ({ method: 'GET' as const, path: '/ok' }) });
    const recorded = await bench.series('recorded', 'svc', 'login', url, make);
    const charted = await bench.series('charted', 'svc', 'me', url, make, undefined, { record: false });
    expect(bench.results.rows).toEqual([recorded]);
    expect(bench.results.sweep.charted).toEqual([charted.result]);
  }, 60_000);

  it('measures a row in turn with its ceiling (ABBA, each slice warmed up) and records one row: the medians of the slices', async () => {
    const bench = quietBench();
    const loads: string[] = [];
    const side = (name: string, path: string) => () => (loads.push(name), { next: () => ({ method: 'GET' as const, path }) });
    const row = await bench.inTurn(
      { system: 'svc', endpoint: 'fast', url, make: side('row', '/ok') },
      { system: 'minimal', endpoint: 'slow', url, make: side('ceiling', '/slow'), name: 'the slow one, in turn' },
      2,
    );
    // Each slice is an untimed load, then the measured one: the row, the ceiling twice, the row.
    expect(loads).toEqual(['row', 'row', 'ceiling', 'ceiling', 'ceiling', 'ceiling', 'row', 'row']);
    // Only the row is recorded, once; the slices are kept with it.
    expect(bench.results.rows).toEqual([row]);
    expect(row).toMatchObject({ system: 'svc', endpoint: 'fast' });
    const { rows: slices, ceilings } = row.inTurn!;
    expect(slices).toHaveLength(2);
    expect(ceilings).toHaveLength(2);
    // The medians of two slices, to a tenth as every figure is.
    expect(row.result.rps).toBe(round((slices[0] + slices[1]) / 2));
    expect(row.ceiling).toEqual({ name: 'the slow one, in turn', perSecond: round((ceilings[0] + ceilings[1]) / 2) });
    expect(row.ratio).toBeCloseTo(row.result.rps / row.ceiling!.perSecond, 3);
    // 2 ms an answer against 20: the ratio is the row's speed over the ceiling's, well above 1.
    expect(row.ratio).toBeGreaterThan(3);
  }, 60_000);

  it("measures a second ceiling in the same turns when asked, each slice right after one of the first ceiling's", async () => {
    const bench = quietBench();
    const loads: string[] = [];
    const side = (name: string, path: string) => () => (loads.push(name), { next: () => ({ method: 'GET' as const, path }) });
    const row = await bench.inTurn(
      { system: 'svc', endpoint: 'fast', url, make: side('row', '/ok') },
      { system: 'minimal', endpoint: 'fast', url, make: side('ceiling', '/ok'), name: 'the same, in turn' },
      2,
      { system: 'minimal', endpoint: 'slow', url, make: side('beside', '/slow'), name: 'the slow one, in turn' },
    );
    // Each slice warmed up: the row, then the ceiling and the second one after each other, twice, the row.
    expect(loads).toEqual(['row', 'row', 'ceiling', 'ceiling', 'beside', 'beside', 'ceiling', 'ceiling', 'beside', 'beside', 'row', 'row']);
    expect(bench.results.rows).toEqual([row]);
    const { slices, perSecond, name } = row.beside!;
    expect(name).toBe('the slow one, in turn');
    expect(slices).toHaveLength(2);
    expect(perSecond).toBe(round((slices[0] + slices[1]) / 2));
    // The row is still divided by the first ceiling; the second is 20 ms an answer against 2.
    expect(row.ceiling!.name).toBe('the same, in turn');
    expect(row.result.rps / perSecond).toBeGreaterThan(3);
    // Neither ceiling delivers mail here, so there is no answered rate to keep.
    expect(row.beside!.ceilingAnswered).toBeUndefined();
  }, 60_000);

  it('counts answers other than the expected status as errors', async () => {
    const result = await runLoad({ url, connections: 1, seconds: 1, next: () => ({ method: 'GET', path: '/bad' }) });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.errors).toBe(result.requests);
    const created = await runLoad({ url, connections: 1, seconds: 1, expectStatus: 201, next: () => ({ method: 'GET', path: '/ok' }) });
    expect(created.errors).toBe(created.requests);
  });
});

describe('TokenQueue (single-use refresh tokens shared by every connection)', () => {
  it('hands tokens out oldest first, each once, then a dead one; stays in order across compaction', () => {
    const queue = new TokenQueue(['a', 'b']);
    queue.push('c');
    expect([queue.take(), queue.take(), queue.take()]).toEqual(['a', 'b', 'c']);
    expect(queue.take()).toBe('exhausted-token-queue');
    for (let i = 0; i < 5000; i += 1) queue.push(`t${i}`);
    for (let i = 0; i < 4500; i += 1) expect(queue.take()).toBe(`t${i}`);
    expect(queue.size).toBe(500);
    expect(queue.take()).toBe('t4500');
  });
});

describe('summarizeProfile (self time per frame and per owner, over the load window)', () => {
  it('sums self time by frame and by package, leaves idle and the samples before the window out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-profile-'));
    try {
      const frame = (id: number, functionName: string, url: string, lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber, scriptId: '0', columnNumber: 0 } });
      const profile = {
        nodes: [
          frame(1, '(root)', ''),
          frame(2, '(idle)', ''),
          frame(3, 'next', 'file:///x/node_modules/.pnpm/router@2.2.0/node_modules/router/index.js', 188),
          frame(4, 'getMe', 'file:///x/packages/core/src/use-cases/get-me.ts', 9),
          frame(5, '(garbage collector)', ''),
          frame(6, 'writev', ''),
        ],
        startTime: 0,
        endTime: 10_000_000,
        // One sample at 0 s (before the 5 s window), then the window: 2 s idle, 1 s router, 1.5 s ours, 0.5 s GC+writev.
        samples: [6, 2, 3, 4, 5, 6],
        timeDeltas: [0, 5_000_000 + 2_000_000, 1_000_000, 1_500_000, 250_000, 250_000],
      };
      const file = join(dir, 'x.cpuprofile');
      writeFileSync(file, JSON.stringify(profile));
      const summary = summarizeProfile(file, 5_000);
      expect(summary.idleMs).toBe(7_000);
      expect(summary.busyMs).toBe(3_000);
      expect(summary.owners).toEqual([
        { owner: 'packages/core', ms: 1500, share: 50 },
        { owner: 'router', ms: 1000, share: 33.3 },
        { owner: '(garbage collector)', ms: 250, share: 8.3 },
        { owner: 'node (internals, native)', ms: 250, share: 8.3 },
      ]);
      expect(summary.frames[0]).toEqual({ frame: 'getMe packages/core/src/use-cases/get-me.ts:10', ms: 1500, share: 50 });
      expect(summary.frames[1]).toEqual({ frame: 'next router/index.js:189', ms: 1000, share: 33.3 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('pendingWriteBytes (what the disk still has to write before a run)', () => {
  it('adds Dirty and Writeback of /proc/meminfo, and knows when neither is there', () => {
    const meminfo = ['MemTotal:       24000000 kB', 'Dirty:             20480 kB', 'Writeback:          1024 kB', 'WritebackTmp:         7 kB'].join('\n');
    expect(pendingWriteBytes(meminfo)).toBe((20480 + 1024) * 1024);
    expect(pendingWriteBytes('MemTotal: 1 kB')).toBeNull();
  });
});

describe('bench/medians.ts', () => {
  it('prints the medians of stored runs and judges the targets on them', () => {
    const runs = ['2026-11-23T12-48-33-final6.json', '2026-11-23T12-56-46-final7.json', '2026-11-23T13-05-05-final8.json'].map((f) => join(ROOT, 'bench', 'results', f));
    const out = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'medians.ts'), ...runs], { cwd: ROOT, encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('median of 3 runs');
    // final6/7/8 refresh ratios 66 %, 67 %, 67 % of their own ceilings: the median is 67 %.
    expect(out.stdout).toMatch(/\| refresh >= 80 % of its ceiling \(p99 <= 25 ms\) \| 67 %, p99 [\d.]+ ms \| \*\*no\*\* \|/);
    expect(out.stdout).toContain('| target | final6 | final7 | final8 |');
  }, 30_000);

  it('divides each stored row again from its figures: a stale ratio in a stored run is not carried', () => {
    // r19-full-1 stored its password-reset row at 92 % of the mail ceiling's first measurement
    // (478.8/s), beside the higher one it kept (734.5/s): 441.1 / 734.5 is 60 %.
    const runs = ['2026-11-27T23-48-32-r19-full-1.json', '2026-11-27T23-59-44-r19-full-2.json', '2026-11-28T00-11-36-r19-full-3.json'].map((f) => join(ROOT, 'bench', 'results', f));
    const stored = JSON.parse(readFileSync(runs[0], 'utf8')) as BenchResults;
    expect(stored.rows.find((row) => row.endpoint === 'password-reset request' && row.system === 'svc · PostgreSQL')?.ratio).toBe(0.921);
    const out = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'medians.ts'), ...runs], { cwd: ROOT, encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('| password-reset request >= 75 % of its ceiling | 60 % **no** | 57 % **no** | 65 % **no** |');
    expect(out.stdout).toMatch(/\| svc · PostgreSQL \| password-reset request \| 546 \|.*\| 60 % \|/);
  }, 30_000);
});

describe('busyShareBetween (whether other work shares the machine as a run starts)', () => {
  const stat = (user: number, system: number, idle: number, iowait: number) => `cpu  ${user} 0 ${system} ${idle} ${iowait} 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n`;

  it('is the busy ticks over all ticks of the first line, idle and waiting for the disk not busy', () => {
    // 300 ticks pass: 60 user + 15 system busy, 200 idle and 25 iowait not.
    expect(busyShareBetween(stat(1000, 500, 8000, 100), stat(1060, 515, 8200, 125))).toBeCloseTo(0.25, 5);
    expect(busyShareBetween(stat(1000, 500, 8000, 100), stat(1000, 500, 8400, 100))).toBe(0);
    expect(busyShareBetween(stat(1000, 500, 8000, 100), stat(1400, 500, 8000, 100))).toBe(1);
  });

  it('answers 0 when no tick passed', () => {
    expect(busyShareBetween(stat(1, 2, 3, 4), stat(1, 2, 3, 4))).toBe(0);
  });
});

describe('the 1M comparison (bench/lib/million.ts, median-rows.ts)', () => {
  it('takes the two sides in turn, ABBA, one of each in every pair of slices', () => {
    expect(turns(4, '1k', '1M')).toEqual(['1k', '1M', '1M', '1k', '1k', '1M', '1M', '1k']);
    const order = turns(MILLION_SLICES, '1k', '1M');
    for (let pair = 0; pair < MILLION_SLICES; pair++) expect(new Set(order.slice(2 * pair, 2 * pair + 2))).toEqual(new Set(['1k', '1M']));
  });

  it('carries a second ceiling into the median row only when every copy has one', () => {
    const mail = (rps: number, beside?: number): RowRecord => ({
      system: 'svc',
      endpoint: 'magic-link request',
      result: { connections: 10, seconds: 5, rps, p50: 1, p99: 2, errors: 0, requests: rps * 5, answeredRps: rps * 1.2, drainMs: 100 },
      ...(beside === undefined ? {} : { beside: { name: 'minimal mail txn, in turn', perSecond: beside, slices: [beside - 1, beside, beside + 1], ceilingAnswered: beside / 2 } }),
    });
    const [merged] = medianRows([[mail(100, 300)], [mail(90, 200)], [mail(120, 400)]]);
    // The answers' share is the median of each run's own (0.4, 0.54, 0.36), not 120 / 300.
    expect(merged.beside).toEqual({ name: 'minimal mail txn, in turn', perSecond: 300, slices: [299, 300, 301, 199, 200, 201, 399, 400, 401], ceilingAnswered: 150, answeredShare: 0.4 });
    expect(merged.result.answeredRps).toBe(120);
    expect(medianRows([[mail(100, 300)], [mail(90)]])[0].beside).toBeUndefined();
  });

  it("makes each side's row the median of its slices, per endpoint", () => {
    const slice = (p50s: Record<string, number>): RowRecord[] =>
      Object.entries(p50s).map(([endpoint, p50]) => ({
        system: 'svc · PostgreSQL 1M',
        endpoint,
        result: { connections: 10, seconds: 5, rps: 1000 / p50, p50, p99: 3 * p50, errors: 0, requests: 5000 / p50 },
      }));
    const rows = medianRows([slice({ refresh: 30, me: 5 }), slice({ refresh: 90, me: 4 }), slice({ refresh: 31, me: 6 }), slice({ refresh: 29, me: 50 })]);
    expect(rows.map((row) => [row.endpoint, row.result.p50])).toEqual([
      ['refresh', 30.5],
      ['me', 5.5],
    ]);
    // A row one slice lacks is left out rather than judged on fewer slices.
    expect(medianRows([slice({ refresh: 30, me: 5 }), slice({ me: 4 })]).map((row) => row.endpoint)).toEqual(['me']);
  });
});

describe('login at one connection in turn with one compare alone (bench/lib/login-alone.ts)', () => {
  const arrivals: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  // A stand-in login that answers after a 40 ms timer (a bcrypt compare at cost 4 takes about 1 ms).
  const served = serveDuringSuite((req, res) => {
    arrivals.push(performance.now());
    mostInFlight = Math.max(mostInFlight, (inFlight += 1));
    const status = req.url === '/fail' ? 401 : 200;
    setTimeout(() => {
      inFlight -= 1;
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    }, 40);
  });

  function benchAtCost4(): Bench {
    const bench = quietBench();
    (bench.args as { cost: number }).cost = 4;
    return bench;
  }

  it('takes three slices of each side, one login at a time, and gives each side the median of its slices', async () => {
    arrivals.length = 0;
    const alone = await loginAloneInTurn(benchAtCost4(), served.url, () => ({ next: () => ({ method: 'POST', path: '/login', body: '{}' }) }));
    expect(alone.slices).toBe(3);
    expect(alone.logins).toHaveLength(3);
    expect(alone.compares).toHaveLength(3);
    for (const p50 of alone.logins) expect(p50).toBeGreaterThanOrEqual(39.5);
    // The compares are bcrypt's own, far below the stand-in's 40 ms.
    for (const ms of alone.compares) expect(ms).toBeGreaterThan(0);
    for (const ms of alone.compares) expect(ms).toBeLessThan(30);
    expect(alone.loginP50).toBe([...alone.logins].sort((a, b) => a - b)[1]);
    expect(alone.compareMs).toBe([...alone.compares].sort((a, b) => a - b)[1]);
    // One at a time: about 25 logins a second-long slice at 40 ms each, never two at once (each
    // slice may leave its last request unanswered when it ends).
    expect(mostInFlight).toBe(1);
    expect(arrivals.length - alone.requests).toBeGreaterThanOrEqual(0);
    expect(arrivals.length - alone.requests).toBeLessThanOrEqual(3);
    expect(alone.requests).toBeGreaterThan(3 * 15);
    expect(alone.requests).toBeLessThanOrEqual(3 * 26);
  }, 60_000);

  it('stops on a login that fails: its time would not be a login', async () => {
    await expect(loginAloneInTurn(benchAtCost4(), served.url, () => ({ next: () => ({ method: 'POST', path: '/fail', body: '{}' }) }))).rejects.toThrow(/errors in a slice/);
  }, 60_000);
});
