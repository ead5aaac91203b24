// A build step of the container images (docker/*.Dockerfile), run in the build stage's disposable
// copy of the workspace (and by scripts/build-image-steps.mjs in a temporary one), after
// scripts/build-packages.mjs has built every package's dist/:
//
//   node scripts/build-runtime.mjs manifests [@svc/name ...]
//       each public package's manifest (or those named: the ones built) takes its publishConfig
//       (entry points and bins in dist/)
//
// Then `pnpm deploy --filter <app> --prod` copies each workspace package as its tarball would
// hold it (`files`: dist/, README, LICENSE; no sources, no tests), so the image runs exactly the
// built output that `pnpm pack:packages` publishes, with the lockfile's dependency versions and
// no TypeScript loader. `pnpm pack` applies publishConfig by itself; `pnpm deploy` does not.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publicPackages, ROOT } from './lib/public-packages.mjs';

const [command, ...names] = process.argv.slice(2);
if (command !== 'manifests') {
  console.error('usage: node scripts/build-runtime.mjs manifests [@svc/name ...]');
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
