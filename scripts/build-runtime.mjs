// A build step of the container images (docker/*.Dockerfile), run in the build stage's disposable
// copy of the workspace (and by scripts/build-image-steps.mjs in a temporary one), after
// scripts/build-packages.mjs has built every package's dist/:
//
//   node scripts/build-runtime.mjs manifests [@svc/name ...]
//       each public package's manifest (or those named: the ones built) takes its publishConfig
//       (entry points and bins in dist/)
//
//   node scripts/build-runtime.mjs maps <deployed dir>
//       after `pnpm deploy`: the source maps of third-party packages go, and those of the app and
//       its @svc packages lose `sourcesContent`. With --enable-source-maps (opt-in in the image,
//       NODE_OPTIONS) Node keeps every map of every loaded module in memory (third-party maps
//       were ~24 MB of idle RSS, typeorm's 15 MB); stack frames of the service's own code still
//       point at its TypeScript files and lines, which is all a stack trace needs.
//
//   node scripts/build-runtime.mjs natives <deployed dir>
//       after `pnpm deploy`: native addons (packages with a binding.gyp) keep what loads at run
//       time, their compiled `build/Release/*.node` and the prebuilt binaries for this OS and
//       architecture (both C libraries on Linux), and lose their C sources (`src/`, `deps/`), the
//       build's intermediate files and other platforms' prebuilds: about 50 MB of the API image,
//       better-sqlite3 being there twice (13, which Node 22+ loads, and 12 for Node 20).
//
// Then `pnpm deploy --filter <app> --prod` copies each workspace package as its tarball would
// hold it (`files`: dist/, README, LICENSE; no sources, no tests), so the image runs exactly the
// built output that `pnpm pack:packages` publishes, with the lockfile's dependency versions and
// no TypeScript loader. `pnpm pack` applies publishConfig by itself; `pnpm deploy` does not.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { publicPackages, ROOT } from './lib/public-packages.mjs';

const [command, ...names] = process.argv.slice(2);
if (command === 'maps' && names.length === 1) {
  slimMaps(names[0]);
  process.exit(0);
}
if (command === 'natives' && names.length === 1) {
  slimNatives(names[0]);
  process.exit(0);
}
if (command !== 'manifests') {
  console.error('usage: node scripts/build-runtime.mjs manifests [@svc/name ...] | maps <deployed dir> | natives <deployed dir>');
  process.exit(2);
}

// It rewrites package.json files: never in a checkout someone works in.
if (existsSync(join(ROOT, '.git')) && process.env.SVC_BUILD_IN_PLACE !== '1') {
  console.error('build-runtime manifests rewrites package.json files; run it in a copy (Docker build stage, scripts/build-image-steps.mjs).');
  process.exit(2);
}

const packages = publicPackages().filter((pkg) => !names.length || names.includes(pkg.name));
if (packages.length !== (names.length || packages.length)) {
  console.error(`unknown package among ${names.join(', ')}`);
  process.exit(2);
}
for (const pkg of packages) {
  const path = join(pkg.dir, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  const { publishConfig = {}, ...rest } = manifest;
  const { access, registry, tag, ...fields } = publishConfig;
  if (!existsSync(join(pkg.dir, 'dist'))) throw new Error(`${pkg.name}: no dist/; run scripts/build-packages.mjs first`);
  // A new file renamed over the old one: a hard link into pnpm's store is never written through.
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ ...rest, ...fields }, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}
console.log('[build-runtime] manifests point at dist/ (publishConfig applied)');

/** Deletes third-party source maps under `dir`; keeps the app's and the @svc packages' without their sources. */
function slimMaps(dir) {
  let deleted = 0;
  let slimmed = 0;
  const ours = `${sep}node_modules${sep}@svc${sep}`;
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      // pnpm's node_modules links into its .pnpm folder: each file is visited once, where it lives.
      if (entry.isSymbolicLink()) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.map')) {
        if (path.includes(`${sep}node_modules${sep}`) && !path.includes(ours)) {
          unlinkSync(path);
          deleted += 1;
        } else {
          const { sourcesContent, ...map } = JSON.parse(readFileSync(path, 'utf8'));
          // A new file renamed over the old one: a hard link into pnpm's store is never written through.
          writeFileSync(`${path}.tmp`, JSON.stringify(map));
          renameSync(`${path}.tmp`, path);
          slimmed += 1;
        }
      }
    }
  };
  walk(dir);
  console.log(`[build-runtime] source maps: ${deleted} third-party deleted, ${slimmed} of the service kept without sources`);
}

/** Leaves each native addon under `dir`'s pnpm store what it loads on this platform (see the header). */
function slimNatives(dir) {
  const store = join(dir, 'node_modules', '.pnpm');
  const platforms = process.platform === 'linux' ? [`linux-${process.arch}`, `linuxmusl-${process.arch}`] : [`${process.platform}-${process.arch}`];
  const slimmed = [];
  for (const version of existsSync(store) ? readdirSync(store) : []) {
    const modules = join(store, version, 'node_modules');
    if (!existsSync(modules)) continue; // lock.yaml and the like
    // The package itself is a folder there; its dependencies are links to their own version folders.
    const folders = (at) => readdirSync(at, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    for (const entry of folders(modules)) {
      const scoped = entry.name.startsWith('@') ? folders(join(modules, entry.name)).map((inner) => join(entry.name, inner.name)) : [entry.name];
      for (const pkg of scoped.map((name) => join(modules, name))) {
        if (!existsSync(join(pkg, 'binding.gyp'))) continue;
        for (const folder of ['src', 'deps']) rmSync(join(pkg, folder), { recursive: true, force: true });
        const release = join(pkg, 'build', 'Release');
        if (existsSync(join(pkg, 'build'))) {
          for (const entry of readdirSync(join(pkg, 'build'))) if (entry !== 'Release') rmSync(join(pkg, 'build', entry), { recursive: true, force: true });
        }
        if (existsSync(release)) {
          for (const entry of readdirSync(release)) if (!entry.endsWith('.node')) rmSync(join(release, entry), { recursive: true, force: true });
        }
        const prebuilds = join(pkg, 'prebuilds');
        if (existsSync(prebuilds)) {
          // `linux-x64.node` (a file) or `linux-x64/` (a folder of them), by the addon's loader.
          for (const entry of readdirSync(prebuilds)) if (!platforms.includes(entry.replace(/\.node$/, ''))) rmSync(join(prebuilds, entry), { recursive: true, force: true });
        }
        slimmed.push(version);
      }
    }
  }
  console.log(`[build-runtime] native addons: ${slimmed.join(', ') || 'none'} keep only what loads on ${platforms.join(' or ')}`);
}
