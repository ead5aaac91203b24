import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = resolve(__dirname, '..', '..', '..');

export interface Tarball {
  name: string;
  version: string;
  file: string;
  size: number;
}

/** A temporary npm project outside the workspace with every packed @svc package installed. */
export interface ConsumerApp {
  /** The project folder (node_modules, the files of test/consumer/app). */
  dir: string;
  tarballs: Tarball[];
  /** Seconds spent packing (build included) and in `npm install`. */
  timings: { pack: number; install: number };
  remove(): void;
}

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
const rangeOf = (dir: string, field: 'dependencies' | 'devDependencies', name: string): string => {
  const range = manifestOf(dir)[field]?.[name];
  if (!range) throw new Error(`${dir}/package.json has no ${field}.${name}`);
  return range;
};

/**
 * What the consumer installs besides the tarballs, at the workspace's own ranges (so npm's cache
 * stays warm): Express for its own app, Node's types for tsc, and the optional peers of the
 * /testing entry points (their test servers).
 */
function thirdParty(): Record<string, string> {
  return {
    express: rangeOf('apps/proxy', 'dependencies', 'express'),
    '@types/node': rangeOf('.', 'devDependencies', '@types/node'),
    mailparser: rangeOf('packages/adapters-smtp', 'devDependencies', 'mailparser'),
    '@types/mailparser': rangeOf('packages/adapters-smtp', 'devDependencies', '@types/mailparser'),
    'smtp-server': rangeOf('packages/adapters-smtp', 'devDependencies', 'smtp-server'),
    'oauth2-mock-server': rangeOf('packages/adapters-oauth', 'devDependencies', 'oauth2-mock-server'),
  };
}

/** Packs every public package once (building it first), then one `npm install` of all of them. */
export function prepareConsumerApp(log: (line: string) => void): ConsumerApp {
  const base = mkdtempSync(join(tmpdir(), 'svc-consumer-'));
  const remove = () => rmSync(base, { recursive: true, force: true });
  try {
    const t0 = Date.now();
    const packed = spawnSync(process.execPath, [join(ROOT, 'scripts', 'pack-packages.mjs'), join(base, 'tarballs'), '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      maxBuffer: 16 << 20,
    });
    if (packed.status !== 0) throw new Error(`pnpm pack:packages failed:\n${packed.stdout}${packed.stderr}`);
    const tarballs: Tarball[] = JSON.parse(packed.stdout.trim().split('\n').pop()!);
    const pack = (Date.now() - t0) / 1000;
    log(`packed ${tarballs.length} packages in ${pack.toFixed(1)}s`);

    const dir = join(base, 'app');
    mkdirSync(dir);
    cpSync(join(__dirname, '..', 'app'), dir, { recursive: true });
    const dependencies = Object.fromEntries(tarballs.map((tarball) => [tarball.name, `file:${tarball.file}`]));
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'svc-consumer', private: true, version: '1.0.0', dependencies: { ...dependencies, ...thirdParty() } }, null, 2)}\n`);

    const t1 = Date.now();
    npmInstall(dir);
    const install = (Date.now() - t1) / 1000;
    log(`npm install in ${install.toFixed(1)}s`);
    return { dir, tarballs, timings: { pack, install }, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function npmInstall(dir: string): void {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', SCARF_ANALYTICS: 'false', JOBS: 'max' };
  // better-sqlite3 compiles from source here; against the machine's Node headers when present.
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  // Plain npm, as a customer runs it: no workspace, no links; the packages come from the tarballs.
  const result = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`npm install failed (${result.status}):\n${result.stdout}${result.stderr}`.slice(-8000));
}

/** Runs a command; answers its stdout, or throws with everything it printed. */
export function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    env: { ...process.env, NODE_OPTIONS: '', ...options.env },
    encoding: 'utf8',
    timeout: options.timeout ?? 120_000,
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** Runs a file of the consumer app with plain node and parses the JSON it printed last. */
export function runJson<T>(app: ConsumerApp, file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): T {
  const out = run(process.execPath, [file, ...args], { cwd: app.dir, env });
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}
