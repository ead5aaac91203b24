import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');
const MAIN = resolve(ROOT, 'apps/api/src/main.ts');
/** `svc start`: the CLI's way of running the same service. */
export const CLI_START = [resolve(ROOT, 'apps/api/src/cli/index.ts'), 'start'];

/**
 * A real API process on a free port: `node --import tsx apps/api/src/main.ts`, i.e. tsx's loader in
 * one process. (The `tsx` CLI runs the program in a second process; killing the CLI with SIGKILL
 * would leave that one running.)
 */
export interface ApiProcess {
  url: string;
  /** Everything it printed, for a failing test's message. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Sends a signal and nothing else (e.g. SIGTERM under load, to watch the drain). */
  signal(name: NodeJS.Signals): void;
  /** Resolves with the exit code (null when a signal killed it) once the process has exited. */
  exited: Promise<number | null>;
}

/**
 * Starts the API with `env` (PORT=0: it picks a free port) and resolves once it logs the
 * "listening" line, from which the port is read. Rejects if it exits or takes longer than
 * `timeoutMs`, with what it printed.
 */
export function startApiProcess(env: Record<string, string>, timeoutMs = 60_000, command: string[] = [MAIN]): Promise<ApiProcess> {
  // NODE_OPTIONS of the jest run (VM modules) is not the API's business.
  const child = spawn(process.execPath, ['--import', 'tsx', ...command], { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: '', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => fail(new Error(`API did not start within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${error.message}\n--- output ---\n${output}`));
    };
    const exitedEarly = (code: number | null) => fail(new Error(`API exited with ${code} before listening`));
    child.once('exit', exitedEarly);
    child.stderr!.on('data', (chunk) => (output += chunk));
    let started = false;
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const port = started ? null : listeningPort(output);
      if (port === null) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      resolvePromise({ url: `http://127.0.0.1:${port}`, output: () => output, stop: (graceMs) => stop(child, graceMs), signal: (name) => void child.kill(name), exited });
    });
  });
}

/** The port of the JSON log line "svc API listening on port N", once printed. */
function listeningPort(output: string): number | null {
  for (const line of output.split('\n')) {
    if (!line.includes('svc API listening')) continue;
    try {
      const port = (JSON.parse(line) as { port?: unknown }).port;
      if (typeof port === 'number' && port > 0) return port;
    } catch {
      // a partial line: wait for the rest
    }
  }
  return null;
}

function stop(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolvePromise();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Calls `probe` every `everyMs` until `done` holds of its answer; returns the time that took, or
 * fails past `limitMs` with the last answer.
 */
export async function pollUntil<R extends { status: number; body: unknown }>(probe: () => Promise<R>, done: (answer: R) => boolean, limits: { limitMs: number; everyMs: number }): Promise<number> {
  const started = Date.now();
  let last: R | undefined;
  while (Date.now() - started < limits.limitMs) {
    last = await probe();
    if (done(last)) return Date.now() - started;
    await new Promise((resolveWait) => setTimeout(resolveWait, limits.everyMs));
  }
  throw new Error(`not within ${limits.limitMs} ms; last answer ${last?.status} ${JSON.stringify(last?.body)}`);
}
