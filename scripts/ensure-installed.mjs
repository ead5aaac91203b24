// Installs the workspace on first use, so `npm start` and `npm test` work on a fresh clone with
// only Node and npm. pnpm is taken from PATH, else run through npx at the pinned version.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchingNodeDir } from './lib/node-headers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const marker = join(root, 'node_modules', '.modules.yaml');
const lockfile = join(root, 'pnpm-lock.yaml');

const upToDate = existsSync(marker) && (!existsSync(lockfile) || statSync(marker).mtimeMs >= statSync(lockfile).mtimeMs);

if (!upToDate) {
  const env = { ...process.env };
  // Native addons (better-sqlite3) build against the running Node's headers when the machine has them.
  env.npm_config_nodedir = matchingNodeDir();
  const hasPnpm = (() => {
    try {
      execSync('pnpm --version', { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  const pnpm = hasPnpm ? 'pnpm' : 'npx --yes pnpm@12.21.0';
  const frozen = process.env.CI ? ' --frozen-lockfile' : '';
  console.log(`[svc] installing dependencies with ${pnpm}${frozen} ...`);
  execSync(`${pnpm} install${frozen}`, { cwd: root, stdio: 'inherit', env });
}

// The admin console (apps/console) is served by the API from its built bundle: built here, on a
// fresh clone and whenever a source is newer than the bundle, before anything starts or tests.
const consoleRoot = join(root, 'apps', 'console');
const consoleBundle = join(root, 'apps', 'api', 'console', 'console.js');
const newestSource = () => {
  const sources = readdirSync(join(consoleRoot, 'src')).map((name) => statSync(join(consoleRoot, 'src', name)).mtimeMs);
  // The console bundles two files of core (apps/console/build.mjs, `alias`).
  const fromCore = ['email-templates.ts', 'security-event.ts'].map((name) => statSync(join(root, 'packages', 'core', 'src', 'domain', name)).mtimeMs);
  return Math.max(...sources, statSync(join(consoleRoot, 'build.mjs')).mtimeMs, ...fromCore);
};
if (existsSync(consoleRoot) && (!existsSync(consoleBundle) || statSync(consoleBundle).mtimeMs < newestSource())) {
  console.log('[svc] building the admin console ...');
  execSync('node build.mjs', { cwd: consoleRoot, stdio: 'inherit' });
}
