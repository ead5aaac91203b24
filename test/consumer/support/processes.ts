import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface Running {
  /** The first match of the `ready` pattern in the output. */
  match: RegExpExecArray;
  output(): string;
  /** SIGTERM, then the exit code (SIGKILL after 15 s). */
  stop(): Promise<number | null>;
}

/** Starts a long-running process and resolves once its output matches `ready`. */
export function start(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; ready: RegExp; name: string }): Promise<Running> {
  const child: ChildProcess = spawn(command, args, { cwd: options.cwd, env: { ...options.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // 'close', not 'exit': the output is complete by then.
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${options.name} did not get ready within 60 s:\n${output}`));
    }, 60_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${options.name} exited with ${code} before it was ready:\n${output}`));
    });
    const collect = (chunk: Buffer) => {
      output += chunk;
      const match = options.ready.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', collect);
      child.stdout!.on('data', (more: Buffer) => (output += more));
      resolve({ match, output: () => output, stop });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  });
}

/** A port nobody listens on now (a server learns it before it starts, for its issuer URL). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
