import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const MAIN = join(ROOT, 'apps', 'proxy', 'src', 'main.ts');

/** A free loopback port (bind to 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export interface StandaloneProxy {
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Runs `apps/proxy/src/main.ts` (what `pnpm start:proxy` runs) with `env`, as its own process. */
export function spawnStandaloneProxy(env: Record<string, string>): StandaloneProxy {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const child = spawn(TSX, [MAIN], { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Polls `url` until it answers (any status) or `timeoutMs` passes. */
export async function waitForHttp(url: string, proxy: StandaloneProxy, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proxy.child.exitCode !== null) throw new Error(`proxy exited early:\n${proxy.output()}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`proxy did not answer at ${url}:\n${proxy.output()}`);
}
