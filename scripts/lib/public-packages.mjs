// The published packages of the workspace and what each one builds, read from their manifests.
//
// A package is public when its package.json is not `private`. In the workspace its `exports`
// point at TypeScript source (tests, tsx and tsc need no build); `publishConfig` holds the
// manifest fields a packed tarball gets instead (pnpm pack applies them), pointing at `dist/`.
// Every built file `dist/<name>.{mjs,js}` comes from `src/<name>.ts` or `src/<name>/index.ts`,
// so the build entries follow from `publishConfig.exports` and `publishConfig.bin`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** @returns {{ name: string, dir: string, manifest: any, entries: Record<string,string>, bins: Record<string,string> }[]} */
export function publicPackages() {
  const found = [];
  for (const group of ['packages', 'apps']) {
    for (const folder of readdirSync(join(ROOT, group)).sort()) {
      const dir = join(ROOT, group, folder);
      const path = join(dir, 'package.json');
      if (!existsSync(path)) continue;
      const manifest = JSON.parse(readFileSync(path, 'utf8'));
      if (manifest.private) continue;
      found.push({ name: manifest.name, dir, manifest, entries: libraryEntries(dir, manifest), bins: binEntries(dir, manifest) });
    }
  }
  return found;
}

/** `{ index: 'src/index.ts', testing: 'src/testing/index.ts' }` from the published exports map. */
function libraryEntries(dir, manifest) {
  const entries = {};
  for (const [subpath, target] of Object.entries(manifest.publishConfig?.exports ?? {})) {
    if (typeof target !== 'object' || !target.import) continue; // ./package.json, one-file bundles
    const file = target.import.default ?? target.import;
    entries[basename(file).replace(/\.m?js$/, '')] = sourceOf(dir, file, subpath);
  }
  return entries;
}

/** `{ cli: 'src/cli.ts' }` from the published bin map. */
function binEntries(dir, manifest) {
  const entries = {};
  for (const [command, file] of Object.entries(manifest.publishConfig?.bin ?? {})) {
    entries[basename(file).replace(/\.js$/, '')] = sourceOf(dir, file, `bin ${command}`);
  }
  return entries;
}

function sourceOf(dir, file, what) {
  const name = basename(file).replace(/\.m?js$/, '');
  for (const candidate of [`src/${name}.ts`, `src/${name}/index.ts`]) {
    if (existsSync(join(dir, candidate))) return candidate;
  }
  throw new Error(`${join(dir, 'package.json')}: ${what} -> ${file}, but neither src/${name}.ts nor src/${name}/index.ts exists`);
}
