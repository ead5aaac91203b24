import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { basename, join } from 'node:path';
import type { Bench, BenchResults } from './context';
import { databaseUrl, SVC_SCHEMA } from './database';
import { median, runConcurrently, round, settle } from './load';
import { ticks } from './proc-cpu';
import { BUILT_SERVER_ARGS, extraNodeFlags, ROOT, stopChild } from './processes';
import * as rows from './rows';
import { ADMIN_TOKEN, createProject, logIn, MASTER_KEY, PASSWORD, RAISED_LIMITS } from './svc';
import type { RunScope } from './suite-postgres';

/** Start and memory figures of the built server (what the image runs), per storage. */
export interface StartupFigures {
  /** ms from spawn to the first `/healthz` 200, each restart on migrated storage; `readyMs` is their median. */
  readyRuns: number[];
  readyMs: number;
  /** The first start on empty storage (migrations included), for information. */
  firstBootMs: number;
  /** VmRSS `IDLE_SECONDS` after ready, no request but the health checks; median over the restarts. */
  idleRssMb: number;
}

export interface MemoryFigures {
  storage: 'sqlite' | 'postgres';
  loadSeconds: number;
  restSeconds: number;
  idleRssMb: number;
  afterLoadRssMb: number;
  afterRestRssMb: number;
  /** Seconds from the end of the load until the server's CPU fell quiet (when the rest began). */
  drainSeconds?: number;
  /** afterRest / idle: 1.2 = 20 % above idle. */
  ratio: number;
  /**
   * The server's CPU (every thread) over the rest's second half, ms a second: what an idle server
   * spends on its own timers and polls. Runs before 2026-11-28 (round 24) did not measure it.
   */
  restCpuMsPerSecond?: number;
  requests: number;
  errors: number;
  /**
   * The malloc the server ran with: the file name of the library the image preloads (jemalloc since
   * round 27, when the machine has it: scripts/build-image-steps.mjs), else `libc`. Runs before
   * 2026-11-29 did not record it (libc's, with the image's thresholds since round 24).
   */
  malloc?: string;
}

const IDLE_SECONDS = 5;
const RESTARTS = 3;

/**
 * The built API (`@svc/server` as the image holds it): `--built DIR`, or built now by replaying
 * the image's steps (scripts/build-image-steps.mjs --keep, about 30 s) in a scratch folder that
 * the run removes at the end. Answers the app folder (the image's WORKDIR).
 */
export function builtServerDir(bench: Bench, scope: RunScope): string {
  if (bench.args.built) return bench.args.built;
  const root = bench.args.apiRoot ?? ROOT;
  bench.log(`  building the server as the image does (node scripts/build-image-steps.mjs --keep in ${root}) ...`);
  const built = spawnSync(process.execPath, [join(root, 'scripts', 'build-image-steps.mjs'), '--keep'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const work = /working in (\S+)/.exec(built.stdout)?.[1];
  if (work) scope.cleanups.push(() => void spawnSync('rm', ['-rf', work]));
  if (built.status !== 0 || !work) throw new Error(`building the server failed (${built.status}):\n${(built.stdout + built.stderr).slice(-3000)}`);
  return imageAppDir(work);
}

/**
 * The Node a built server runs on: the one its build was replayed on (the images' major,
 * scripts/build-image-steps.mjs notes it in its work folder), whose ABI its native modules were
 * installed for; this process's own for a folder without that note.
 */
export function builtNode(dir: string): string {
  const note = workNote(dir, 'node');
  return note === null ? process.execPath : note.trim();
}

/**
 * The environment the API image sets (its runtime stage's ENV), which scripts/build-image-steps.mjs
 * notes in its work folder: the built server runs with it, as in the image (the malloc settings
 * among it move the memory rows). Empty for a folder without that note.
 */
export function imageEnv(dir: string): Record<string, string> {
  const note = workNote(dir, 'api-env.json');
  return note === null ? {} : (JSON.parse(note) as Record<string, string>);
}

/** A file scripts/build-image-steps.mjs wrote in the work folder around the app folder `dir`; null without it. */
function workNote(dir: string, name: string): string | null {
  const file = join(dir, '..', '..', name);
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

/** The app folder inside a kept scripts/build-image-steps.mjs work folder. */
export function imageAppDir(work: string): string {
  const app = join(work, 'api-root', 'app');
  if (!existsSync(join(app, 'dist', 'cli.js'))) throw new Error(`${app} holds no dist/cli.js: not a built server`);
  return app;
}

type Storage = { kind: 'sqlite' } | { kind: 'postgres'; database: string; redisPrefix: string };

interface BuiltProcess {
  child: ChildProcess;
  url: string;
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * Spawns the image's command (`node dist/cli.js start`) in `dir`, with the image's ENV, and times it
 * to the first `/healthz` 200, polled every 5 ms over node:http (a refused connection costs
 * microseconds): the figure an orchestrator's readiness probe would see, less its interval.
 */
export async function spawnBuilt(dir: string, storage: Storage, dataDir: string, logFile: string, cost: number, port: number, extraEnv: Record<string, string> = {}): Promise<BuiltProcess> {
  const log = openSync(logFile, 'a');
  const started = performance.now();
  const child = spawn(builtNode(dir), [...extraNodeFlags, ...BUILT_SERVER_ARGS], {
    cwd: dir,
    env: {
      ...imageEnv(dir),
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'production',
      PORT: String(port),
      SVC_DATA_DIR: dataDir,
      SVC_ADMIN_TOKEN: ADMIN_TOKEN,
      SVC_MASTER_KEY: MASTER_KEY,
      SVC_BCRYPT_COST: String(cost),
      SVC_RATE_LIMITS: RAISED_LIMITS,
      ...(storage.kind === 'postgres'
        ? { DATABASE_URL: databaseUrl(storage.database), SVC_DATABASE_SCHEMA: SVC_SCHEMA, REDIS_URL: 'redis://127.0.0.1:6379', SVC_REDIS_PREFIX: storage.redisPrefix }
        : {}),
      ...extraEnv,
    },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await healthy(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the built server did not answer /healthz (exit ${child.exitCode}):\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const readyMs = round(performance.now() - started);
  return {
    child,
    url,
    readyMs,
    stop: () => stopChild(child, exited),
  };
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200));
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

/** Resident set of a process in MB (VmRSS of /proc/<pid>/status). */
export function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN);
  return round(kb / 1024);
}

/**
 * Time to ready and idle RSS of the built server on `storage`: a first start (migrations on empty
 * storage), then `RESTARTS` starts on the migrated storage, each left idle for `IDLE_SECONDS`.
 */
export async function measureStartup(bench: Bench, scope: RunScope, dir: string, storage: Storage, freePort: () => Promise<number>): Promise<StartupFigures> {
  const dataDir = mkdtempSync(join(scope.tmp, `built-${storage.kind}-`));
  const logFile = join(scope.tmp, `built-${storage.kind}.log`);
  const first = await spawnBuilt(dir, storage, dataDir, logFile, bench.args.cost, await freePort());
  await first.stop();
  const readyRuns: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < RESTARTS; i += 1) {
    await settle();
    const running = await spawnBuilt(dir, storage, dataDir, logFile, bench.args.cost, await freePort());
    readyRuns.push(running.readyMs);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    rss.push(rssMb(running.child.pid!));
    await running.stop();
  }
  const figures = { readyRuns, readyMs: median(readyRuns), firstBootMs: first.readyMs, idleRssMb: median(rss) };
  bench.log(`  built server, ${storage.kind}: ready in ${readyRuns.join(' / ')} ms (median ${figures.readyMs}; first start ${first.readyMs} ms), idle RSS ${rss.join(' / ')} MB`);
  return figures;
}

/**
 * The leak check: the built server idle, then `loadSeconds` of mixed load (logins, refreshes,
 * `/me`, magic links and sign-ups at once), then `restSeconds` without a request; RSS at each step.
 */
export async function measureMemory(bench: Bench, scope: RunScope, dir: string, storage: Storage, port: number, extraEnv: Record<string, string> = {}): Promise<MemoryFigures> {
  const seconds = bench.args.seconds >= 5 ? 60 : 10;
  const dataDir = mkdtempSync(join(scope.tmp, 'built-memory-'));
  const running = await spawnBuilt(dir, storage, dataDir, join(scope.tmp, 'built-memory.log'), bench.args.cost, port, extraEnv);
  try {
    const project = await createProject(running.url);
    const emails = [1, 2, 3, 4].map((n) => `leak-${n}@example.test`);
    for (const email of emails) await signUp(running.url, project.apiKey, email);
    const sessions = await Promise.all(Array.from({ length: 24 }, (_, i) => logIn(running.url, project.apiKey, emails[i % emails.length])));
    const key = { 'x-api-key': project.apiKey };
    await settle();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = rssMb(running.child.pid!);
    bench.log(`  memory (built server, ${storage.kind}): idle ${idle} MB; ${seconds} s of mixed load ...`);
    let n = 0;
    const loads = await runConcurrently([
      { url: running.url, connections: 2, seconds, ...loginOf(project.apiKey, emails) },
      {
        url: running.url,
        connections: 3,
        seconds,
        ...rows.refresh(
          '/api/auth/refresh',
          key,
          sessions.map((s) => s.refreshToken),
        ),
      },
      {
        url: running.url,
        connections: 3,
        seconds,
        ...rows.bearerGet(
          '/api/auth/me',
          key,
          sessions.map((s) => s.accessToken),
        ),
      },
      {
        url: running.url,
        connections: 2,
        seconds,
        next: () => ({ method: 'POST', path: '/api/auth/magic-link', headers: key, body: JSON.stringify({ email: emails[n++ % emails.length] }) }),
        expectStatus: 200,
      },
    ]);
    const afterLoad = rssMb(running.child.pid!);
    // Work the load left behind (mails accepted but not yet delivered, hashes queued) is not rest:
    // the rest starts once the server's CPU falls quiet.
    const drainSeconds = await quietProcess(running.child.pid!, 180);
    // The first half of the rest holds the collection that gives the load's memory back
    // (rest-collector.ts); the second half is the server at rest.
    await new Promise((resolve) => setTimeout(resolve, (seconds / 2) * 1000));
    const restCpuMsPerSecond = await cpuMsPerSecond(running.child.pid!, seconds / 2);
    const afterRest = rssMb(running.child.pid!);
    const preload = { ...imageEnv(dir), ...extraEnv }.LD_PRELOAD;
    const figures: MemoryFigures = {
      storage: storage.kind,
      malloc: preload ? basename(preload) : 'libc',
      loadSeconds: seconds,
      restSeconds: seconds,
      idleRssMb: idle,
      afterLoadRssMb: afterLoad,
      afterRestRssMb: afterRest,
      ratio: round(afterRest / idle, 3),
      drainSeconds,
      restCpuMsPerSecond,
      requests: loads.reduce((sum, load) => sum + load.requests, 0),
      errors: loads.reduce((sum, load) => sum + load.errors, 0),
    };
    bench.log(
      `  memory (malloc ${figures.malloc}): ${figures.requests} requests (${figures.errors} errors); RSS idle ${idle} MB, after load ${afterLoad} MB, quiet ${drainSeconds} s later, after ${seconds} s of rest ${afterRest} MB (${figures.ratio}x idle); CPU at rest ${restCpuMsPerSecond} ms a second`,
    );
    return figures;
  } finally {
    await running.stop();
  }
}

/** utime + stime of a process in clock ticks (proc-cpu.ts), or null once it is gone. */
function cpuTicks(pid: number): number | null {
  return existsSync(`/proc/${pid}/stat`) ? ticks(pid) : null;
}

/**
 * The CPU time `pid` spends over the next `seconds` (every thread, user and system), in ms a
 * second; /proc counts it in ticks of 10 ms, so a window of 30 s reads it to a third of a ms.
 */
export async function cpuMsPerSecond(pid: number, seconds: number): Promise<number> {
  const before = cpuTicks(pid);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = cpuTicks(pid);
  if (before === null || after === null) throw new Error(`process ${pid} ended while its CPU was read`);
  return round(((after - before) * 10) / seconds);
}

/**
 * Waits until `pid` used under 5 % of a core over a second, or is gone (at most `maxSeconds`);
 * answers the seconds waited.
 */
export async function quietProcess(pid: number, maxSeconds: number): Promise<number> {
  const started = Date.now();
  let before = cpuTicks(pid);
  while (before !== null && Date.now() - started < maxSeconds * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = cpuTicks(pid);
    // USER_HZ is 100: 5 ticks in a second are 5 % of one core.
    if (now === null || now - before <= 5) break;
    before = now;
  }
  return Math.round((Date.now() - started) / 1000);
}

function loginOf(apiKey: string, emails: string[]): rows.Workload {
  let n = 0;
  return {
    next: () => ({ method: 'POST', path: '/api/auth/login', headers: { 'x-api-key': apiKey }, body: JSON.stringify({ email: emails[n++ % emails.length], password: PASSWORD }) }),
    expectStatus: 200,
  };
}

async function signUp(url: string, apiKey: string, email: string): Promise<void> {
  const response = await fetch(`${url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`sign-up on the built server failed: ${response.status}`);
}

/** Each start figure's median over the runs that measured it (readyRuns: every restart of every run). */
export function medianStartup(all: BenchResults[]): BenchResults['startup'] {
  const out: NonNullable<BenchResults['startup']> = {};
  for (const storage of ['sqlite', 'postgres'] as const) {
    const figures = all.map((run) => run.startup?.[storage]).filter((f): f is StartupFigures => f !== undefined);
    if (figures.length === 0) continue;
    out[storage] = {
      readyRuns: figures.flatMap((f) => f.readyRuns),
      readyMs: round(median(figures.map((f) => f.readyMs))),
      firstBootMs: round(median(figures.map((f) => f.firstBootMs))),
      idleRssMb: round(median(figures.map((f) => f.idleRssMb))),
    };
  }
  return Object.keys(out).length ? out : undefined;
}

export function medianMemory(all: BenchResults[]): MemoryFigures | undefined {
  const figures = all.map((run) => run.memory).filter((m): m is MemoryFigures => m !== undefined);
  if (figures.length === 0) return undefined;
  const of = (pick: (m: MemoryFigures) => number, digits = 1) => round(median(figures.map(pick)), digits);
  // Only the runs that measured it (round 24 on).
  const restCpu = figures.map((m) => m.restCpuMsPerSecond).filter((ms): ms is number => ms !== undefined);
  return {
    ...figures[0],
    idleRssMb: of((m) => m.idleRssMb),
    afterLoadRssMb: of((m) => m.afterLoadRssMb),
    afterRestRssMb: of((m) => m.afterRestRssMb),
    ratio: of((m) => m.ratio, 3),
    ...(restCpu.length > 0 ? { restCpuMsPerSecond: round(median(restCpu)) } : {}),
    requests: of((m) => m.requests),
    errors: of((m) => m.errors),
    // Each run's malloc, named once when they agree (runs before round 27 did not record it).
    ...(figures.some((m) => m.malloc) ? { malloc: [...new Set(figures.map((m) => m.malloc ?? 'unrecorded'))].join(' / ') } : {}),
  };
}
