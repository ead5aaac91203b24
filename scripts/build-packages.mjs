// Builds every public package into its dist/ folder (what `pnpm pack:packages` packs):
//
//   node scripts/build-packages.mjs [@svc/name ...]     (default: all public packages)
//
// Each library entry is built twice by tsup (esbuild, then rollup for tree-shaking and shared
// chunks): `dist/<entry>.mjs` (ES module) and `dist/<entry>.js` (CommonJS), with bundled
// declarations `.d.mts`/`.d.ts` and source maps that carry their sources. Dependencies, other
// @svc packages included, stay imports; only the package's own files are bundled. Entries of one
// package share chunks, so a class (AuthError, SvcError) exists once per module format.
// Command-line entries (`bin`) are CommonJS files with a shebang. Why this build and not tsc:
// docs/decisions.md ("Packages").
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { rollup } from 'rollup';
import { dts } from 'rollup-plugin-dts';
import { build } from 'tsup';
import { publicPackages, ROOT } from './lib/public-packages.mjs';

const TSCONFIG = join(ROOT, 'tsconfig.build.json');
// Node 20.19 is the oldest Node the packages support (engines).
const TARGET = 'node20';

const ESM_REQUIRE = "import { createRequire as __svcCreateRequire } from 'node:module';\nconst require = __svcCreateRequire(import.meta.url);";

const wanted = process.argv.slice(2);
const packages = publicPackages().filter((pkg) => !wanted.length || wanted.includes(pkg.name));
// The server package ships the admin console's bundle (apps/api/console), built from apps/console.
if (packages.some((pkg) => pkg.name === '@svc/server')) {
  const built = spawnSync(process.execPath, [join(ROOT, 'apps', 'console', 'build.mjs')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
if (wanted.length && packages.length !== wanted.length) {
  console.error(`unknown package among ${wanted.join(', ')}`);
  process.exit(2);
}

const started = Date.now();
const declarations = emitDeclarations();
try {
  for (const pkg of packages) {
    const t0 = Date.now();
    await buildPackage(pkg);
    await bundleDeclarations(pkg, declarations);
    console.log(`[build] ${pkg.name} in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
  }
} finally {
  rmSync(declarations, { recursive: true, force: true });
}
console.log(`[build] ${packages.length} packages in ${((Date.now() - started) / 1000).toFixed(1)}s`);

/** One tsc run emits the .d.ts of every source file (much faster than one program per package). */
function emitDeclarations() {
  const outDir = mkdtempSync(join(tmpdir(), 'svc-declarations-'));
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', TSCONFIG, '--outDir', outDir], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json failed (${result.status})`);
  return outDir;
}

/**
 * The declarations of each entry bundled into `dist/<entry>.d.ts` (for require) and `.d.mts`
 * (for import): only the package's own types are inlined; other packages stay imports.
 */
async function bundleDeclarations(pkg, declarations) {
  const input = Object.fromEntries(Object.entries(pkg.entries).map(([name, file]) => [name, join(declarations, relative(ROOT, pkg.dir), file.replace(/\.ts$/, '.d.ts'))]));
  const bundle = await rollup({
    input,
    plugins: [dts({ respectExternal: false })],
    external: (id) => !id.startsWith('.') && !id.startsWith('/'),
    onLog: (level, log) => {
      if (level === 'warn') throw new Error(`${pkg.name} declarations: ${log.message}`);
    },
  });
  for (const [types, js] of [
    ['d.ts', 'js'],
    ['d.mts', 'mjs'],
  ]) {
    await bundle.write({
      dir: join(pkg.dir, 'dist'),
      format: 'es',
      entryFileNames: `[name].${types}`,
      chunkFileNames: `types-[hash].${types}`,
      // A declaration file imports its sibling by the JavaScript file's name (./x.js -> ./x.d.ts).
      plugins: [{ name: 'declaration-specifiers', renderChunk: (code) => code.replaceAll(`.${types}';`, `.${js}';`) }],
    });
  }
  await bundle.close();
}

async function buildPackage(pkg) {
  const browser = pkg.manifest.svcBuild?.platform === 'browser';
  const common = {
    config: false,
    silent: true,
    tsconfig: TSCONFIG,
    outDir: join(pkg.dir, 'dist'),
    target: browser ? 'es2020' : TARGET,
    platform: browser ? 'browser' : 'node',
    sourcemap: true,
    // `node:crypto`, not `crypto`: Deno and edge runtimes know Node's modules only by that name.
    removeNodeProtocol: false,
    // Every import of a package (dependencies, @svc/*, Node built-ins) stays an import, but for
    // the few a package inlines (`svcBuild.inline`, below).
    skipNodeModulesBundle: true,
    ...inlining(pkg.manifest.svcBuild?.inline),
  };
  // tsup reads the package's manifest from the working directory.
  process.chdir(pkg.dir);
  await build({
    ...common,
    entry: absolute(pkg.dir, pkg.entries),
    format: ['esm', 'cjs'],
    clean: true,
    dts: false,
    splitting: true,
    // Rollup does the CommonJS output: it keeps `import()` of ESM-only libraries (jose,
    // openid-client, oidc-provider) as import(), where esbuild's splitting would turn it into require().
    treeshake: true,
    // __dirname/__filename in the ES modules (the server finds its OpenAPI files with them), and
    // `require` for their require.resolve() calls (the bcrypt worker, swagger-ui's folder).
    shims: true,
    // Only where needed: the SDK and the proxy must also load where node:module does not exist.
    banner: ({ format }) => (format === 'esm' && pkg.manifest.svcBuild?.esmRequire ? { js: ESM_REQUIRE } : {}),
  });
  checkEsmRequire(pkg);
  if (Object.keys(pkg.bins).length) {
    await build({ ...common, entry: absolute(pkg.dir, pkg.bins), format: ['cjs'], clean: false, dts: false, splitting: false, banner: { js: '#!/usr/bin/env node' } });
  }
  if (pkg.manifest.svcBuild?.bundle) await bundleForBrowsers(pkg);
  copyFileSync(join(ROOT, 'LICENSE'), join(pkg.dir, 'LICENSE'));
  inlinedLicenses(pkg);
  process.chdir(ROOT);
}

/**
 * Options that bundle the dependencies named in `svcBuild.inline` into the package's files, from
 * their ES module build, so that what the package does not use of them is left out: class-validator's
 * index loads every decorator it has, and the one for phone numbers loads libphonenumber-js's
 * metadata, 3 MB of the server's memory at rest that no route uses (bench/README.md, round 13).
 * What the inlined code imports stays an import, with the file's extension that an ES module's
 * import of a package's inner file needs (validator has no "exports" map).
 */
function inlining(names = []) {
  if (!names.length) return {};
  return {
    noExternal: names,
    esbuildOptions(options) {
      options.mainFields = ['es2015', 'module', 'main'];
    },
    plugins: [
      {
        name: 'inlined-imports',
        renderChunk: (code) => ({ code: code.replace(/(["'])(validator\/lib\/[A-Za-z0-9_]+)\1/g, '$1$2.js$1') }),
      },
    ],
  };
}

/** The licence of each inlined dependency ships with the code: `dist/licenses/<name>/LICENSE`. */
function inlinedLicenses(pkg) {
  const resolve = createRequire(join(pkg.dir, 'package.json')).resolve;
  for (const name of pkg.manifest.svcBuild?.inline ?? []) {
    const target = join(pkg.dir, 'dist', 'licenses', name);
    mkdirSync(target, { recursive: true });
    copyFileSync(join(dirname(resolve(`${name}/package.json`)), 'LICENSE'), join(target, 'LICENSE'));
  }
}

/** An ES module calling require() without `svcBuild.esmRequire` in its manifest would throw at run time. */
function checkEsmRequire(pkg) {
  for (const file of readdirSync(join(pkg.dir, 'dist')).filter((name) => name.endsWith('.mjs'))) {
    const code = readFileSync(join(pkg.dir, 'dist', file), 'utf8');
    if (/\b__require\b/.test(code) && !code.includes('createRequire(import.meta.url)')) {
      throw new Error(`${pkg.name}: dist/${file} calls require(); set "svcBuild": { "esmRequire": true } in its package.json`);
    }
  }
}

// Absolute paths: skipNodeModulesBundle takes a bare `src/index.ts` for a package name.
function absolute(dir, entries) {
  return Object.fromEntries(Object.entries(entries).map(([name, file]) => [name, join(dir, file)]));
}

/** The one-file ES module of a browser package (dependencies included), for <script type="module">. */
async function bundleForBrowsers(pkg) {
  const { bundleClient } = await import(join(pkg.dir, pkg.manifest.svcBuild.bundle.script));
  const output = join(pkg.dir, pkg.manifest.svcBuild.bundle.output);
  mkdirSync(join(output, '..'), { recursive: true });
  writeFileSync(output, await bundleClient({ minify: true }));
  // `.js` under dist/browser is an ES module for Node and linters too, as it is for browsers;
  // its types are the package's (the bundle exports what src/index.ts exports).
  writeFileSync(join(output, '..', 'package.json'), '{ "type": "module" }\n');
  writeFileSync(output.replace(/\.js$/, '.d.ts'), "export * from '../index.mjs';\n");
  console.log(`[build] ${pkg.name}: ${relative(pkg.dir, output)}`);
}
