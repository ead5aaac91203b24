import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Express } from 'express';
import { createApp } from '../../src/http/app';
import { loadConfig } from '../../src/composition/config';
import { buildContainer, type Container } from '../../src/composition/container';
import { resolveSecrets } from '../../src/composition/dev-secrets';
import { createLogger } from '../../src/composition/logger';
import { createSvcServer } from '../../src/composition/svc-server';

/** The admin token of every RealApp. */
export const REAL_ADMIN_TOKEN = 'real-app-admin-token-0123456789abcdefghij';

/** The composition of `pnpm start` (every adapter, the OIDC provider) on SQLite in a temp folder. */
export interface RealApp {
  app: Express;
  container: Container;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Builds the real container over a fresh SQLite folder (bcrypt cost 4); `close()` removes it.
 * The app logs nothing, or every line at `warn` and above into `logLines` when given.
 */
export async function startRealApp(env: Record<string, string> = {}, options: { logLines?: string[] } = {}): Promise<RealApp> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-real-app-'));
  const baseUrl = 'http://svc.example.test';
  const { config } = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4', SVC_BASE_URL: baseUrl, SVC_ADMIN_TOKEN: REAL_ADMIN_TOKEN, SVC_MASTER_KEY: '7'.repeat(64), ...env }));
  const container = await buildContainer(config);
  const { logLines } = options;
  const logger = logLines ? createLogger({ level: 'warn', destination: new Writable({ write: (chunk, _e, done) => void (logLines.push(String(chunk)), done()) }) }) : createLogger({ level: 'silent' });
  const app = createApp({ ...container, logger, config });
  return {
    app,
    container,
    baseUrl,
    close: async () => {
      await container.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The real composition on a loopback port, for tests that need real sockets (fetch, timing). */
export interface ListeningApp {
  url: string;
  container: Container;
  close(): Promise<void>;
}

/**
 * `pnpm start`'s service (createSvcServer) in this process, listening on a free loopback port:
 * `env` as the environment (a fresh data folder, bcrypt cost 4 and fixed secrets unless given).
 * `close()` stops it as SIGTERM would and removes the folder.
 */
export async function listenRealApp(env: Record<string, string> = {}): Promise<ListeningApp> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-listen-'));
  const config = loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4', SVC_ADMIN_TOKEN: REAL_ADMIN_TOKEN, SVC_MASTER_KEY: '7'.repeat(64), LOG_LEVEL: 'silent', ...env });
  const server = await createSvcServer(config);
  const { url } = await server.start({ port: 0, host: '127.0.0.1' });
  return {
    url: url!,
    container: server.container,
    close: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
