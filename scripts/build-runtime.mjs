// Build steps of the container images (docker/*.Dockerfile), run in the build stage's disposable
// copy of the workspace (and by scripts/build-image-steps.mjs in a temporary one):
//
//   node scripts/build-runtime.mjs compile       tsc emits .js beside every workspace source file,
//                                                and package manifests point at the .js files
//   node scripts/build-runtime.mjs prune <dir>   drops TypeScript sources and tests from the
//                                                output of `pnpm deploy`
//
// Why compile at all: our packages are source-first TypeScript run by tsx (docs/decisions.md).
// In a `pnpm deploy` output the workspace packages sit inside node_modules, where tsx ignores the
// tsconfig, so decorators and class fields would compile differently from development and tests
// (TC39 decorators break class-validator). tsc with the workspace's own options gives the same
// semantics, no compiler at run time and a faster start.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [command, target] = process.argv.slice(2);

if (command === 'compile') compile();
else if (command === 'prune' && target) prune(target);
else {
  console.error('usage: node scripts/build-runtime.mjs compile | prune <deploy-dir>');
  process.exit(2);
}

function compile() {
  // It rewrites package.json files: never in a checkout someone works in.
  if (existsSync(join(root, '.git')) && process.env.SVC_BUILD_IN_PLACE !== '1') {
    console.error('build-runtime compile rewrites manifests; run it in a copy (Docker build stage, scripts/build-image-steps.mjs).');
    process.exit(2);
  }
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'docker', 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const manifest = join(root, group, name, 'package.json');
      if (existsSync(manifest)) pointAtJavaScript(manifest);
    }
  }
  console.log('[build-runtime] compiled the workspace and pointed its manifests at .js');
}

/** `./src/x.ts` -> `./src/x.js` in main, exports and scripts (`tsx src/main.ts` -> `node src/main.js`). */
function pointAtJavaScript(path) {
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  const toJs = (value) => (typeof value === 'string' ? value.replace(/^(\.?\/?src\/.*)\.ts$/, '$1.js') : value);
  const walk = (value) =>
    typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, walk(entry)])) : toJs(value);
  if (manifest.main) manifest.main = toJs(manifest.main);
  if (manifest.exports) manifest.exports = walk(manifest.exports);
  delete manifest.types;
  for (const [name, script] of Object.entries(manifest.scripts ?? {})) {
    manifest.scripts[name] = script.replace(/\btsx (\S+)\.ts\b/g, 'node $1.js');
  }
  // A new file renamed over the old one: a hard link into pnpm's store is never written through.
  writeFileSync(`${path}.tmp`, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

/** The app and every workspace package copied into the deploy output. */
function ourPackages(dir) {
  const store = join(dir, 'node_modules', '.pnpm');
  const copies = existsSync(store)
    ? readdirSync(store)
        .filter((entry) => entry.startsWith('@svc+'))
        .flatMap((entry) => {
          const scope = join(store, entry, 'node_modules', '@svc');
          return existsSync(scope) ? readdirSync(scope).map((name) => join(scope, name)) : [];
        })
    : [];
  return [dir, ...copies];
}

function prune(dir) {
  let removed = 0;
  const visit = (path, top) => {
    for (const entry of readdirSync(path)) {
      const full = join(path, entry);
      if (top && entry === 'node_modules') continue;
      const stat = statSync(full);
      if (stat.isDirectory()) {
        if (entry === 'test' || entry === 'screenshots') {
          rmSync(full, { recursive: true, force: true });
          removed += 1;
        } else visit(full, false);
      } else if ((entry.endsWith('.ts') && !entry.endsWith('.d.ts')) || /\.test\.js(\.map)?$/.test(entry) || entry === 'tsconfig.json') {
        rmSync(full); // unlink: the store's hard-linked original stays
        removed += 1;
      }
    }
  };
  for (const pkg of ourPackages(dir)) visit(pkg, true);
  console.log(`[build-runtime] pruned ${removed} source and test entries from ${dir}`);
}
