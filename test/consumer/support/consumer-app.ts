import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

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
  /** Seconds spent packing (build included) and in `npm install` (both installs, side by side). */
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
 * stays warm): Express and Hono (with its Node server) for its own apps, Node's types for tsc, and
 * the optional peers of the /testing entry points (their test servers).
 */
function thirdParty(): Record<string, string> {
  return {
    express: rangeOf('apps/proxy', 'dependencies', 'express'),
    hono: rangeOf('apps/proxy', 'devDependencies', 'hono'),
    '@hono/node-server': rangeOf('apps/proxy', 'devDependencies', '@hono/node-server'),
    '@types/node': rangeOf('.', 'devDependencies', '@types/node'),
    mailparser: rangeOf('packages/adapters-smtp', 'devDependencies', 'mailparser'),
    '@types/mailparser': rangeOf('packages/adapters-smtp', 'devDependencies', '@types/mailparser'),
    'smtp-server': rangeOf('packages/adapters-smtp', 'devDependencies', 'smtp-server'),
    'oauth2-mock-server': rangeOf('packages/adapters-oauth', 'devDependencies', 'oauth2-mock-server'),
  };
}

/**
 * What only the documentation samples import and no part of the workspace uses: Next.js (its
 * `next/server` types; React comes as its peer). Installed on its own into `samples/`, the folder
 * the samples are type-checked in, beside the main install and without optional dependencies
 * (Next's compiler binaries and sharp, which type-checking never loads).
 */
const SAMPLES_ONLY = { next: '^16.4.6' };

/**
 * Packs every public package once (building it first), then one `npm install` of all of them,
 * with the samples' own install running beside it.
 */
export async function prepareConsumerApp(log: (line: string) => void): Promise<ConsumerApp> {
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

    const samples = join(dir, 'samples');
    mkdirSync(samples);
    writeFileSync(join(samples, 'package.json'), `${JSON.stringify({ name: 'svc-consumer-samples', private: true, version: '1.0.0', dependencies: SAMPLES_ONLY }, null, 2)}\n`);

    const prebuild = workspacePrebuild(base);
    const t1 = Date.now();
    // Native addons build against the running Node's headers (scripts/lib/node-headers.mjs).
    const { matchingNodeDir } = (await import(join(ROOT, 'scripts', 'lib', 'node-headers.mjs'))) as { matchingNodeDir(): string | undefined };
    const headers = { npm_config_nodedir: matchingNodeDir() };
    await Promise.all([npmInstall(dir, [], { ...headers, ...prebuild?.env }), npmInstall(samples, ['--omit=optional'], headers)]);
    const install = (Date.now() - t1) / 1000;
    const compiled = existsSync(join(dir, 'node_modules', SQLITE_NODE20, 'build', 'Release', 'obj.target'));
    log(`npm install in ${install.toFixed(1)}s (better-sqlite3 ${compiled ? 'compiled' : `${prebuild?.version} from the workspace's build`})`);
    return { dir, tarballs, timings: { pack, install }, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

const SQLITE_NODE20 = 'better-sqlite3-node20';

/**
 * better-sqlite3 12, the one the adapter loads on Node 20 (installed as `better-sqlite3-node20`;
 * 13, for Node 22 and newer, ships its binaries in its package and builds nothing): its install
 * script (prebuild-install) unpacks a prebuilt binary when it finds one
 * and compiles only otherwise, which takes minutes. Here it cannot download one (only the npm
 * registry is reachable), but the workspace's install has built the same package for this Node:
 * packed as a prebuild under the name prebuild-install looks for, in the folder its
 * `<package>_local_prebuilds` setting names, it is unpacked as a downloaded one would be (and
 * loaded once to check it). Should the consumer resolve another version, or that binary not
 * load, better-sqlite3 compiles as before. Not on musl, whose prebuilds carry another name.
 */
function workspacePrebuild(base: string): { env: NodeJS.ProcessEnv; version: string } | null {
  const glibc = process.platform !== 'linux' || Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);
  let pkg: string;
  try {
    pkg = dirname(createRequire(join(ROOT, 'packages', 'adapters-typeorm', 'package.json')).resolve(`${SQLITE_NODE20}/package.json`));
  } catch {
    return null;
  }
  const binary = join('build', 'Release', 'better_sqlite3.node');
  if (!glibc || !existsSync(join(pkg, binary))) return null;
  const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
  const folder = join(base, 'prebuilds');
  mkdirSync(folder);
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  run('tar', ['-czf', join(folder, file), '-C', pkg, binary], { cwd: base });
  // prebuild-install names the setting after the package's own name, which the alias keeps.
  return { env: { npm_config_better_sqlite3_local_prebuilds: folder }, version };
}

/** `npm install` in `dir`, without blocking the event loop (the two installs run side by side). */
function npmInstall(dir: string, extra: string[], more: NodeJS.ProcessEnv): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', SCARF_ANALYTICS: 'false', JOBS: 'max', ...more };
  // Plain npm, as a customer runs it: no workspace, no links; the packages come from the tarballs.
  const child = spawn('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...extra], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`npm install in ${dir} failed (${code}):\n${output}`.slice(-8000)))));
  });
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
