// `pnpm pack:packages <dir>`: builds every public package (scripts/build-packages.mjs), then packs
// each into `<dir>/svc-<name>-<version>.tgz` with `pnpm pack`, which applies the manifest's
// publishConfig (dist/ entry points, bins) and turns `workspace:` ranges into the version.
// Prints one line per tarball and, with --json, a JSON list on the last line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { publicPackages, ROOT } from './lib/public-packages.mjs';

const args = process.argv.slice(2);
const json = args.includes('--json');
const skipBuild = args.includes('--no-build');
const target = args.find((arg) => !arg.startsWith('--'));
if (!target) {
  console.error('usage: pnpm pack:packages <dir> [--no-build] [--json]');
  process.exit(2);
}
const destination = resolve(process.env.INIT_CWD ?? process.cwd(), target);
mkdirSync(destination, { recursive: true });

const run = (command, commandArgs, cwd) => {
  const result = spawnSync(command, commandArgs, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(' ')} (in ${cwd}) failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
};

if (!skipBuild) {
  const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-packages.mjs')], { stdio: ['ignore', json ? 'ignore' : 'inherit', 'inherit'] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const tarballs = [];
for (const pkg of publicPackages()) {
  run('pnpm', ['pack', '--pack-destination', destination], pkg.dir);
  const file = join(destination, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.manifest.version}.tgz`);
  const { size } = statSync(file);
  tarballs.push({ name: pkg.name, version: pkg.manifest.version, file, size });
  if (!json) console.log(`[pack] ${pkg.name}@${pkg.manifest.version}: ${file} (${(size / 1024).toFixed(1)} KiB)`);
}
if (json) console.log(JSON.stringify(tarballs));
