import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { buildContainer, type Container } from '../../src/container';
import { resolveSecrets } from '../../src/dev-secrets';
import { createLogger } from '../../src/logger';

/** The admin token of every RealApp. */
export const REAL_ADMIN_TOKEN = 'real-app-admin-token-0123456789abcdefghij';

/** The composition of `pnpm start` (every adapter, the OIDC provider) on SQLite in a temp folder. */
export interface RealApp {
  app: Express;
  container: Container;
  baseUrl: string;
  close(): Promise<void>;
}

/** Builds the real container over a fresh SQLite folder (bcrypt cost 4); `close()` removes it. */
export async function startRealApp(env: Record<string, string> = {}): Promise<RealApp> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-real-app-'));
  const baseUrl = 'http://svc.example.test';
  const { config } = await resolveSecrets(
    loadConfig({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4', SVC_BASE_URL: baseUrl, SVC_ADMIN_TOKEN: REAL_ADMIN_TOKEN, SVC_MASTER_KEY: '7'.repeat(64), ...env }),
  );
  const container = await buildContainer(config);
  const app = createApp({ ...container, logger: createLogger({ level: 'silent' }), config });
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
