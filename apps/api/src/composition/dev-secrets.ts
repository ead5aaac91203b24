import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Environment } from '@svc/core';
import { decodeMasterKey } from '@svc/adapters-crypto';
import { adminTokenProblem, type Config, type DatabaseConfig } from './config';

// The embedded default (docs/operating.md#configuration) must start with nothing configured, yet keep its secrets
// across restarts: a new master key would make every stored signing key undecryptable. So unset
// secrets are generated once into the data folder, readable by the owner only. loadConfig
// already refused this in production, where secrets come from the environment.

/** Configuration with both secrets present. */
export type RuntimeConfig = Config & { adminToken: string; masterKey: Buffer };

export interface ResolvedSecrets {
  config: RuntimeConfig;
  /** Secrets created just now (first start): the admin token is shown once, then only its file. */
  generated: { adminToken: boolean; masterKey: boolean };
  /** Files that hold secrets taken from the data folder, for "where to find it" messages. */
  files: { adminToken: string | null; masterKey: string | null };
}

const ADMIN_TOKEN_FILE = 'admin-token';
const MASTER_KEY_FILE = 'master-key';
const DEMO_PROJECT_FILE = 'demo-project.json';

/** Fills unset secrets from `<dataDir>/admin-token` and `<dataDir>/master-key`, creating them if absent. */
export async function resolveSecrets(config: Config): Promise<ResolvedSecrets> {
  const admin =
    config.adminToken !== null
      ? fromEnvironment(config.adminToken)
      : await fileSecret(
          config.dataDir,
          ADMIN_TOKEN_FILE,
          () => randomBytes(32).toString('base64url'),
          (raw) => adminTokenProblem(raw) === null,
        );
  const master =
    config.masterKey !== null
      ? fromEnvironment(config.masterKey.toString('hex'))
      : await fileSecret(
          config.dataDir,
          MASTER_KEY_FILE,
          () => randomBytes(32).toString('hex'),
          (raw) => decodeMasterKey(raw) !== null,
        );
  return {
    config: { ...config, adminToken: admin.value, masterKey: decodeMasterKey(master.value)! },
    generated: { adminToken: admin.created, masterKey: master.created },
    files: { adminToken: admin.path, masterKey: master.path },
  };
}

interface Secret {
  value: string;
  path: string | null;
  created: boolean;
}

const fromEnvironment = (value: string): Secret => ({ value, path: null, created: false });

async function fileSecret(dir: string, name: string, generate: () => string, valid: (raw: string) => boolean): Promise<Secret> {
  const path = join(dir, name);
  const existing = await readIfExists(path);
  if (existing !== null) {
    const value = existing.trim();
    if (!valid(value)) throw new Error(`${path} does not hold a valid secret; fix or delete it (or set the variable).`);
    return { value, path, created: false };
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const value = generate();
  try {
    // 'wx': of two processes starting at once, one writes and the other reads its value.
    await writeFile(path, `${value}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fileSecret(dir, name, generate, valid);
    throw error;
  }
  return { value, path, created: true };
}

/** Keys of the demo project made on first start, kept so later starts can point to them. */
export interface DemoProjectFile {
  projectId: string;
  apiKeys: Record<Environment, string>;
  createdAt: string;
}

/**
 * The demo project's file for `database` in `dataDir`: `demo-project.json` for the embedded
 * default (`<dataDir>/svc.sqlite`), else `demo-project.<kind>-<hash of the database>.json`, so a
 * data folder used with SQLite and then PostgreSQL (or two PostgreSQL databases or schemas)
 * keeps each database's demo keys. The hash covers the address without its password.
 */
export function demoProjectPath(dataDir: string, database?: DatabaseConfig): string {
  if (!database || (database.kind === 'sqlite' && resolve(database.path) === resolve(dataDir, 'svc.sqlite'))) return join(dataDir, DEMO_PROJECT_FILE);
  const identity = database.kind === 'sqlite' ? resolve(database.path) : `${withoutPassword(database.url)}#${database.schema ?? ''}`;
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 12);
  return join(dataDir, `demo-project.${database.kind}-${hash}.json`);
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.toString();
}

export async function readDemoProject(dataDir: string, database?: DatabaseConfig): Promise<DemoProjectFile | null> {
  const text = await readIfExists(demoProjectPath(dataDir, database));
  return text === null ? null : (JSON.parse(text) as DemoProjectFile);
}

export async function writeDemoProject(dataDir: string, demo: DemoProjectFile, database?: DatabaseConfig): Promise<string> {
  const path = demoProjectPath(dataDir, database);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeFile(path, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode only applies to new files; an old file keeps its permissions otherwise.
  await chmod(path, 0o600);
  return path;
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
