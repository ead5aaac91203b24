import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');

/**
 * What `svc start` loads before its first request: the modules of a feature that a request may
 * never use are required on first use (passkeys, TOTP, the mailers' nodemailer, the OpenAPI
 * document's YAML parser), and a storage driver only when that storage is configured (bench/README.md,
 * "Start-up"). Run in a fresh process: jest's own module registry would hide Node's.
 */
function loadedAtImport(): string[] {
  const script = `require('./apps/api/src/cli/index.ts');
    process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as string[];
}

describe('modules loaded when the server is imported', () => {
  it('leaves out the libraries of features and storages not used before the first request', () => {
    const files = loadedAtImport();
    const packageLoaded = (name: string) => files.some((file) => file.includes(`/node_modules/${name}/`));
    // What every start needs is there (the check below would pass on an empty list otherwise).
    expect(packageLoaded('typeorm')).toBe(true);
    expect(packageLoaded('express')).toBe(true);
    for (const deferred of ['@simplewebauthn/server', 'otpauth', 'nodemailer', 'yaml', 'ioredis', 'pg']) {
      expect({ deferred, loaded: packageLoaded(deferred) }).toEqual({ deferred, loaded: false });
    }
  }, 30_000);
});
