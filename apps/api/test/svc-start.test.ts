import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_START, startApiProcess } from './support/api-process';

// `svc start` runs the service as `pnpm start` does: here the embedded default (SQLite and the
// file mailbox in a fresh data folder, generated secrets, the demo project of a first start).

describe('svc start', () => {
  it('serves /healthz and /readyz, creates the demo project, and stops on SIGTERM with exit 0', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-start-'));
    const api = await startApiProcess({ SVC_DATA_DIR: dir, SVC_BCRYPT_COST: '4' }, 60_000, CLI_START);
    try {
      expect(await (await fetch(`${api.url}/healthz`)).json()).toEqual({ data: { status: 'ok' } });
      expect(await (await fetch(`${api.url}/readyz`)).json()).toEqual({ data: { status: 'ready' } });
      const demo = JSON.parse(await readFile(join(dir, 'demo-project.json'), 'utf8'));
      expect(demo.apiKeys.sandbox).toMatch(/^svc_sbx_/);
      // Its mails link to the demo app where `PROXY_STATIC_DIR=apps/demo pnpm start:proxy` serves it.
      const adminToken = (await readFile(join(dir, 'admin-token'), 'utf8')).trim();
      const project = (await (await fetch(`${api.url}/admin/projects/${demo.projectId}`, { headers: { Authorization: `Bearer ${adminToken}` } })).json()) as { data: { project: object } };
      expect(project.data.project).toMatchObject({ magicLinkUrl: 'http://localhost:3001/', passwordResetUrl: 'http://localhost:3001/' });
      api.signal('SIGTERM');
      expect(await api.exited).toBe(0);
      expect(api.output()).toContain('"msg":"stopped"');
    } finally {
      await api.stop(1000);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
