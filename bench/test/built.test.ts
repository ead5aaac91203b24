import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMsPerSecond, imageAppDir, imageEnv, medianMemory, medianStartup, quietProcess, rssMb, spawnBuilt, type MemoryFigures, type StartupFigures } from '../lib/built';
import type { BenchResults } from '../lib/context';
import { freePort, startChild } from '../lib/processes';

// A stand-in for the built server: `dist/cli.js start` that listens at once but answers /healthz
// 503 until DELAY ms after it started, and holds BALLAST MB of memory.
const FAKE_CLI = `
const started = Date.now();
const ballast = Buffer.alloc(Number(process.env.BALLAST_MB || 0) * 1024 * 1024, 1);
require('node:http').createServer((req, res) => {
  const ready = Date.now() - started >= Number(process.env.DELAY_MS);
  if (req.url === '/env') return res.writeHead(200).end(JSON.stringify(process.env));
  res.writeHead(req.url === '/healthz' && ready ? 200 : 503).end(String(ballast.length));
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
`;

describe('the built server figures (start time, RSS)', () => {
  let work: string;
  let app: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'bench-built-'));
    app = join(work, 'api-root', 'app');
    mkdirSync(join(app, 'dist'), { recursive: true });
    writeFileSync(join(app, 'dist', 'cli.js'), FAKE_CLI);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('finds the app folder in a kept image-steps folder, and refuses one without dist/cli.js', () => {
    expect(imageAppDir(work)).toBe(app);
    expect(() => imageAppDir(tmpdir())).toThrow(/not a built server/);
  });

  it('times spawn to the first /healthz 200 (not the first answer), and reads the RSS of the process', async () => {
    const spawnEnv = { DELAY_MS: '300', BALLAST_MB: '64' };
    const running = await spawnBuilt(app, { kind: 'sqlite' }, work, join(work, 'log'), 4, await freePort(), spawnEnv);
    try {
      expect(running.readyMs).toBeGreaterThanOrEqual(300);
      expect(running.readyMs).toBeLessThan(5000);
      // The 64 MB of ballast are resident (filled, not just reserved).
      expect(rssMb(running.child.pid!)).toBeGreaterThan(64);
    } finally {
      await running.stop();
    }
    expect(running.child.exitCode).toBe(0);
  }, 20_000);

  it("runs the built server with the image's ENV as the image-steps script noted it, the run's own settings over it", async () => {
    expect(imageEnv(app)).toEqual({}); // no note: nothing added
    writeFileSync(join(work, 'api-env.json'), JSON.stringify({ GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=131072', PORT: '3000', SVC_DATA_DIR: '/data', NODE_ENV: 'production' }));
    try {
      const port = await freePort();
      const running = await spawnBuilt(app, { kind: 'sqlite' }, work, join(work, 'log'), 4, port, { DELAY_MS: '0' });
      try {
        const env = (await (await fetch(`${running.url}/env`)).json()) as Record<string, string>;
        expect(env).toMatchObject({ GLIBC_TUNABLES: 'glibc.malloc.trim_threshold=131072', PORT: String(port), SVC_DATA_DIR: work });
      } finally {
        await running.stop();
      }
    } finally {
      rmSync(join(work, 'api-env.json'));
    }
  }, 20_000);

  it('starts a built server in place of a TypeScript entry point: dist/cli.js start, in its folder, on the given Node', async () => {
    const child = await startChild({ name: 'built', script: 'apps/api/src/main.ts', env: { DELAY_MS: '0' }, logFile: join(work, 'child.log'), built: { dir: app, node: process.execPath } });
    try {
      const cmdline = readFileSync(`/proc/${child.process.pid}/cmdline`, 'utf8').split('\0');
      expect(cmdline.slice(0, 3)).toEqual([process.execPath, 'dist/cli.js', 'start']);
      expect(realpathSync(readlinkSync(`/proc/${child.process.pid}/cwd`))).toBe(realpathSync(app));
      expect((await fetch(`${child.url}/healthz`)).status).toBe(200);
    } finally {
      await child.stop();
    }
  }, 20_000);

  it('waits for a process to fall quiet: at once for an idle one, until its busy spell ends for a busy one', async () => {
    // An idle process of its own, measured once it has started (not this worker, which other suites keep busy).
    const idle = spawn(process.execPath, ['-e', 'console.log("started"); setTimeout(() => {}, 10000);'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((resolve) => idle.stdout.once('data', resolve));
      expect(await quietProcess(idle.pid!, 5)).toBeLessThanOrEqual(2);
    } finally {
      idle.kill();
    }
    const busy = spawn(process.execPath, ['-e', 'const end = Date.now() + 2500; while (Date.now() < end); setTimeout(() => {}, 5000);'], { stdio: 'ignore' });
    try {
      const waited = await quietProcess(busy.pid!, 10);
      expect(waited).toBeGreaterThanOrEqual(2);
      expect(waited).toBeLessThan(10);
    } finally {
      busy.kill();
    }
  }, 20_000);

  it("reads a process's CPU over a window: next to nothing for an idle one, most of a core for a spinning one", async () => {
    const idle = spawn(process.execPath, ['-e', 'console.log("started"); setTimeout(() => {}, 10000);'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const spinning = spawn(process.execPath, ['-e', 'console.log("started"); const end = Date.now() + 10000; while (Date.now() < end);'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await Promise.all([idle, spinning].map((child) => new Promise((resolve) => child.stdout.once('data', resolve))));
      const [idleMs, spinningMs] = await Promise.all([cpuMsPerSecond(idle.pid!, 2), cpuMsPerSecond(spinning.pid!, 2)]);
      expect(idleMs).toBeLessThan(50);
      // One thread spinning is up to 1,000 ms a second; other suites share the machine's two cores.
      expect(spinningMs).toBeGreaterThan(200);
      expect(spinningMs).toBeLessThanOrEqual(1100);
    } finally {
      idle.kill();
      spinning.kill();
    }
    // Once reaped, the process is gone from /proc: the reading fails rather than answering 0.
    if (idle.exitCode === null && idle.signalCode === null) await new Promise((resolve) => idle.once('exit', resolve));
    await expect(cpuMsPerSecond(idle.pid!, 0.1)).rejects.toThrow(/ended/);
  }, 20_000);

  it('takes the median of each figure across runs', () => {
    const run = (startup: StartupFigures, memory: MemoryFigures) => ({ startup: { sqlite: startup }, memory }) as unknown as BenchResults;
    const s = (readyMs: number, idleRssMb: number): StartupFigures => ({ readyRuns: [readyMs, readyMs + 1], readyMs, firstBootMs: readyMs * 2, idleRssMb });
    const m = (ratio: number, idleRssMb: number): MemoryFigures => ({
      storage: 'postgres',
      loadSeconds: 60,
      restSeconds: 60,
      idleRssMb,
      afterLoadRssMb: 2 * idleRssMb,
      afterRestRssMb: ratio * idleRssMb,
      ratio,
      requests: 10,
      errors: 0,
    });
    const runs = [run(s(900, 80), m(1.1, 80)), run(s(500, 100), m(1.3, 100)), run(s(700, 90), m(1.05, 90))];
    const startup = medianStartup(runs)!;
    expect(startup.sqlite).toEqual({ readyRuns: [900, 901, 500, 501, 700, 701], readyMs: 700, firstBootMs: 1400, idleRssMb: 90 });
    expect(startup.postgres).toBeUndefined();
    expect(medianMemory(runs)).toMatchObject({ idleRssMb: 90, ratio: 1.1, afterLoadRssMb: 180 });
    // The CPU at rest only over the runs that measured it; none of these did.
    expect(medianMemory(runs)).not.toHaveProperty('restCpuMsPerSecond');
    const withCpu = (ms: number | undefined) => run(s(700, 90), { ...m(1.1, 90), ...(ms === undefined ? {} : { restCpuMsPerSecond: ms }) });
    expect(medianMemory([withCpu(4), withCpu(undefined), withCpu(12), withCpu(6)])?.restCpuMsPerSecond).toBe(6);
    expect(medianStartup([{} as BenchResults])).toBeUndefined();
    expect(medianMemory([{} as BenchResults])).toBeUndefined();
  });
});
