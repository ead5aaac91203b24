import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { connectRedis, pingRedis } from '@svc/adapters-redis';
import { waitUntil } from '@svc/adapters-redis/testing';

type Redis = Awaited<ReturnType<typeof connectRedis>>;

/**
 * A redis-server of this test's own on a free loopback port, for faults that act on the whole
 * server (CLIENT PAUSE, DEBUG SLEEP) and so must not touch the Redis other suites share.
 */
export interface PrivateRedis {
  url: string;
  /** A client of its own, e.g. to send `CLIENT PAUSE`. */
  admin: Redis;
  stop(): Promise<void>;
}

/** True when a `redis-server` binary is on PATH. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  // Refused until the server listens; the client keeps reconnecting meanwhile.
  const admin = await connectRedis(url, { timeoutMs: 2000, maxReconnectDelayMs: 50 });
  await waitUntil(() => pingRedis(admin), 10_000);
  return {
    url,
    admin,
    stop: async () => {
      admin.disconnect();
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
