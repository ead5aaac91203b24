import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/composition/config';
import { readDemoProject, resolveSecrets, writeDemoProject } from '../src/composition/dev-secrets';

describe('dev secrets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-secrets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates both secrets once (0600) and reads the same ones on the next start', async () => {
    const first = await resolveSecrets(loadConfig({ SVC_DATA_DIR: join(dir, 'data') }));
    expect(first.generated).toEqual({ adminToken: true, masterKey: true });
    expect(first.config.adminToken.length).toBeGreaterThanOrEqual(32);
    expect(first.config.masterKey).toHaveLength(32);
    expect((await stat(join(dir, 'data', 'admin-token'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'data', 'master-key'))).mode & 0o777).toBe(0o600);
    const second = await resolveSecrets(loadConfig({ SVC_DATA_DIR: join(dir, 'data') }));
    expect(second.generated).toEqual({ adminToken: false, masterKey: false });
    expect(second.config.adminToken).toBe(first.config.adminToken);
    expect(second.config.masterKey).toEqual(first.config.masterKey);
    expect(second.files.adminToken).toBe(join(dir, 'data', 'admin-token'));
  });

  it('uses the environment when set and writes nothing', async () => {
    const resolved = await resolveSecrets(loadConfig({ SVC_DATA_DIR: dir, SVC_ADMIN_TOKEN: 'a'.repeat(32), SVC_MASTER_KEY: '01'.repeat(32) }));
    expect(resolved.config.adminToken).toBe('a'.repeat(32));
    expect(resolved.config.masterKey).toEqual(Buffer.alloc(32, 1));
    expect(resolved.files).toEqual({ adminToken: null, masterKey: null });
    await expect(stat(join(dir, 'admin-token'))).rejects.toThrow();
  });

  it('refuses a damaged secret file instead of replacing it (that would orphan every signing key)', async () => {
    await writeFile(join(dir, 'master-key'), 'not a key\n');
    await expect(resolveSecrets(loadConfig({ SVC_DATA_DIR: dir }))).rejects.toThrow(`${join(dir, 'master-key')} does not hold a valid secret`);
  });

  it('keeps the demo project keys in a 0600 file', async () => {
    expect(await readDemoProject(dir)).toBeNull();
    const demo = { projectId: 'p', apiKeys: { production: 'svc_live_x', sandbox: 'svc_sbx_y' }, createdAt: '2026-01-01T00:00:00.000Z' };
    const path = await writeDemoProject(dir, demo);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(demo);
    expect(await readDemoProject(dir)).toEqual(demo);
  });
});
