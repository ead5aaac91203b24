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
// Then `pnpm deploy --filter <app> --prod` copies each workspace package as its tarball would
// hold it (`files`: dist/, README, LICENSE; no sources, no tests), so the image runs exactly the
// built output that `pnpm pack:packages` publishes, with the lockfile's dependency versions and
// no TypeScript loader. `pnpm pack` applies publishConfig by itself; `pnpm deploy` does not.
import { existsSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { publicPackages, ROOT } from './lib/public-packages.mjs';

const [command, ...names] = process.argv.slice(2);
if (command === 'maps' && names.length === 1) {
  slimMaps(names[0]);
  process.exit(0);
}
if (command !== 'manifests') {
  console.error('usage: node scripts/build-runtime.mjs manifests [@svc/name ...] | maps <deployed dir>');
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
