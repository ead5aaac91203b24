import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** A server the bench started: its URL, and how to stop it. */
export interface Child {
  name: string;
  url: string;
  process: ChildProcess;
  /** SIGTERM, then wait for exit (a --cpu-prof child writes its profile on exit). */
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  /** A TypeScript entry point, run with tsx like `pnpm start` does. */
  script: string;
  env: Record<string, string>;
  /** Environment variable that carries the port (PORT, PROXY_PORT). */
  portVariable?: string;
  /** Path answering 200 once the server is ready. */
  healthPath?: string;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** Stdout and stderr go to this file: reading them in the bench process would cost it CPU. */
  logFile: string;
  /** The checkout whose `script` runs (default: this one). */
  cwd?: string;
  /**
   * A built server to run instead of `script` under tsx: `dist/cli.js start` in `dir` (an image's
   * app folder, bench/lib/built.ts), on `node`, the Node it was built for.
   */
  built?: { dir: string; node: string };
}

/** The image's command after `node`, run in a built server's app folder (docker/api.Dockerfile's CMD). */
export const BUILT_SERVER_ARGS: readonly string[] = ['dist/cli.js', 'start'];

/** SIGTERM, then SIGKILL after 15 s; resolves once `child` has exited (`exited` resolves on its exit). */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Node flags for every server the bench starts, the built server's too (built.ts), from
 * `BENCH_NODE_FLAGS` (space-separated, e.g. `--perf-basic-prof` so that `perf record` names the
 * JavaScript frames): the children get a clean environment, so NODE_OPTIONS would not reach them.
 */
export const extraNodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

/** Starts `script` under node + tsx (or the `built` server) on a free loopback port and waits until it answers. */
export async function startChild(options: StartOptions): Promise<Child> {
  const port = await freePort();
  const log = openSync(options.logFile, 'a');
  const { built } = options;
  const entry = built ? BUILT_SERVER_ARGS : ['--import', 'tsx', options.script];
  const child = spawn(built?.node ?? process.execPath, [...extraNodeFlags, ...(options.nodeFlags ?? []), ...entry], {
    cwd: built?.dir ?? options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env, [options.portVariable ?? 'PORT']: String(port) },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await waitUntilHealthy(`${url}${options.healthPath ?? '/healthz'}`, child, options);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    name: options.name,
    url,
    process: child,
    stop: () => stopChild(child, exited),
  };
}

async function waitUntilHealthy(url: string, child: ChildProcess, options: StartOptions): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode} before answering:\n${tail(options.logFile)}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  throw new Error(`${options.name} did not answer ${url} within 90 s:\n${tail(options.logFile)}`);
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** A port nobody listens on now (bound and released; the child binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
