import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The README's first quick-start command, run for real: `npm start` in this checkout (CI runs on a
// fresh clone) must bring the API up on the embedded default and print the demo project's keys.
const ROOT = join(__dirname, '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

function waitFor(read: () => string, pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const match = read().match(pattern);
      if (match) {
        clearInterval(poll);
        resolve(match);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(new Error(`timed out waiting for ${pattern}; output so far:\n${read()}`));
      }
    }, 100);
  });
}

describe('quick start: npm start', () => {
  let child: ChildProcess;
  let output = '';
  let dataDir: string;
  let port: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-quick-start-'));
    port = await freePort();
    child = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        PORT: String(port),
        SVC_DATA_DIR: dataDir,
        SVC_BCRYPT_COST: '4',
        DATABASE_URL: '',
        REDIS_URL: '',
        SMTP_URL: '',
        SVC_ADMIN_TOKEN: '',
        SVC_MASTER_KEY: '',
        NODE_ENV: 'development',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
  }, 10_000);

  afterAll(async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints the demo keys, serves the API, and stops on SIGTERM', async () => {
    const [, sandboxKey] = await waitFor(() => output, /sandbox key:\s+(svc_sbx_[A-Za-z0-9_-]+)/, 90_000);
    await waitFor(() => output, /listening/, 30_000);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const signup = await fetch(`${base}/api/auth/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': sandboxKey },
      body: JSON.stringify({ email: 'quick@example.test', password: 'quick start password' }),
    });
    expect(signup.status).toBe(201);
    const { data } = (await signup.json()) as { data: { accessToken: string } };
    const me = await fetch(`${base}/api/auth/me`, {
      headers: { 'X-API-Key': sandboxKey, Authorization: `Bearer ${data.accessToken}` },
    });
    expect(((await me.json()) as { data: { user: { email: string } } }).data.user.email).toBe('quick@example.test');

    // The whole process group gets the signal (npm, its shell, tsx and the API), as from a terminal.
    process.kill(-child.pid!, 'SIGTERM');
    await waitFor(() => output, /"msg":"stopped"/, 40_000);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  }, 120_000);
});
