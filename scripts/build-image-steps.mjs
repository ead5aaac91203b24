// Replays the build of docker/api.Dockerfile and docker/proxy.Dockerfile without Docker, in a
// temporary folder, then starts what they would run and checks it the way an operator would:
//
//   node scripts/build-image-steps.mjs [--keep]
//
// 1. The build context: the repository's files (tracked and untracked, minus .gitignore) less
//    .dockerignore, copied like `COPY . .`.
// 2. Every instruction of every stage, in order: WORKDIR, COPY (also --from), ENV, and each RUN
//    through `sh -c`, except those marked `# image-only` (apt, a global pnpm, the data folder's
//    owner). Each image gets its own folder standing for the container's `/`.
// 3. The image holds built JavaScript only (no TypeScript source, no TypeScript loader), its native
//    addons only what loads on its platform, and not the dependencies its build inlines.
// 4. The runtime stage's CMD with its ENV (its LD_PRELOAD, the API's jemalloc, as this machine's
//    copy of the library), NODE_ENV=production, the required secrets, a fresh
//    SQLite data folder and free ports; the HEALTHCHECK command against it; /healthz, /readyz,
//    the OpenAPI document and reference page; the image's CLI (`migrate --check`,
//    `project:create`); sign-up, login and /me with the new project's key; the image's malloc
//    loaded in the API's server (when this machine has it); then the proxy image
//    serving the demo over that API (page, sign-up, session cookie); then SIGTERM to both, each
//    of which must exit 0.
//
// It runs on the images' Node major (ARG NODE_IMAGE): on another machine Node it runs itself again
// on that major, taken from the npm registry (scripts/lib/image-node.mjs; `SVC_IMAGE_NODE` names a
// binary instead), with that Node first on PATH for every step, pnpm's included.
//
// Not covered (needs a Docker engine): the base image's OS and exact Node release, the image-only
// steps, USER/VOLUME/EXPOSE, layer caching, compose networking.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dockerignoreMatcher, parseDockerfile, parseEnv } from './lib/dockerfile.mjs';
import { imageNode } from './lib/image-node.mjs';
import { matchingNodeDir } from './lib/node-headers.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

// Once: the run on the images' Node does not look again (a binary named through a link differs
// from its own execPath).
const node = process.env.SVC_IMAGE_STEPS_ON_IMAGE_NODE ? process.execPath : imageNode(repo);
if (node !== process.execPath) {
  console.log(`[image-steps] the images run Node ${imageNodeVersion(node)}: replaying on ${node}`);
  const replay = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, SVC_IMAGE_STEPS_ON_IMAGE_NODE: '1', PATH: `${dirname(node)}:${process.env.PATH}` },
  });
  process.exit(replay.status ?? 1);
}

const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'svc-image-steps-'));
const started = Date.now();
const log = (line) => console.log(`[image-steps +${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
const children = new Set();

try {
  // The Node the replay ran on, for whoever starts the kept build later (the bench's built rows).
  writeFileSync(join(work, 'node'), `${process.execPath}\n`);
  const context = buildContext();
  log(`build context: ${context.length} files (.dockerignore applied); working in ${work}`);
  const api = replay('docker/api.Dockerfile', join(work, 'api-root'), context);
  api.env = preloadHere(api.env);
  // The API image's ENV, for whoever starts the kept build as the image would (the bench's built rows).
  writeFileSync(join(work, 'api-env.json'), `${JSON.stringify(api.env, null, 2)}\n`);
  const proxy = replay('docker/proxy.Dockerfile', join(work, 'proxy-root'), context);
  for (const [name, image] of [
    ['api', api],
    ['proxy', proxy],
  ])
    builtOutputOnly(name, image.cwd);
  nativesSlimmed('api', api.cwd);
  inlinedNotInstalled('api', api.cwd);
  await checkImages(api, proxy);
  log(`ok: both images' build steps replayed, started, checked and stopped cleanly (Node ${process.version} here; the images use ${api.image})`);
  // rm is several times faster than fs.rmSync on a tree of ~90,000 hard links.
  if (!keep) spawnSync('rm', ['-rf', work]);
} catch (error) {
  for (const child of children) child.kill('SIGKILL');
  console.error(`[image-steps] FAILED: ${error.message}\n(kept ${work} for inspection)`);
  process.exit(1);
}

function imageNodeVersion(binary) {
  return spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Files Docker would send: what git knows (tracked or not ignored) and .dockerignore keeps. */
function buildContext() {
  const listed = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repo, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const ignored = dockerignoreMatcher(readFileSync(join(repo, '.dockerignore'), 'utf8'));
  return listed.stdout.split('\0').filter((path) => path && !ignored(path) && existsSync(join(repo, path)));
}

/** Runs a Dockerfile's stages in `root` (the container's `/`); answers how to start the last one. */
function replay(dockerfile, root, context) {
  const { stages } = parseDockerfile(readFileSync(join(repo, dockerfile), 'utf8'));
  const inside = (path) => join(root, path);
  let result;
  for (const stage of stages) {
    let cwd = '/';
    const env = {};
    let run = null;
    let healthcheck = null;
    for (const step of stage.instructions) {
      const at = `${dockerfile}:${step.line}`;
      if (step.keyword === 'WORKDIR') {
        cwd = posix.resolve(cwd, step.args);
        mkdirSync(inside(cwd), { recursive: true });
      } else if (step.keyword === 'ENV') Object.assign(env, parseEnv(step.args));
      else if (step.keyword === 'COPY') copy(step, { context, from: (path) => inside(path), to: (path) => inside(posix.resolve(cwd, path)) });
      else if (step.keyword === 'RUN' && step.imageOnly) log(`${at} skipped (image-only): ${step.args.slice(0, 70)}`);
      else if (step.keyword === 'RUN') runStep(at, step.args, inside(cwd), env);
      else if (step.keyword === 'CMD') run = step.json;
      else if (step.keyword === 'HEALTHCHECK') healthcheck = step.json;
    }
    result = { image: stage.image, cwd: inside(cwd), env, cmd: run, healthcheck };
  }
  if (!result.cmd || !result.healthcheck) throw new Error(`${dockerfile}: the last stage needs CMD and HEALTHCHECK in exec form`);
  return result;
}

function copy(step, paths) {
  const parts = step.args.split(/\s+/);
  const destination = parts.pop();
  for (const source of parts) {
    if (/[*?[]/.test(source)) throw new Error(`line ${step.line}: globs in COPY are not replayed`);
    // Our COPY lines all name a folder as destination; a folder source copies its contents.
    const target = paths.to(destination);
    if (step.flags.from) {
      cpSync(paths.from(source), target, { recursive: true, verbatimSymlinks: true });
    } else if (source === '.') {
      for (const file of paths.context) cpSync(join(repo, file), join(target, file), { recursive: true });
    } else if (paths.context.includes(source)) {
      cpSync(join(repo, source), join(target, posix.basename(source)));
    } else {
      const folder = `${source.replace(/\/$/, '')}/`;
      const files = paths.context.filter((file) => file.startsWith(folder));
      if (files.length === 0) throw new Error(`line ${step.line}: COPY ${source} is not in the build context`);
      for (const file of files) cpSync(join(repo, file), join(target, file.slice(folder.length)), { recursive: true });
    }
  }
}

function runStep(at, command, cwd, env) {
  // Same as a RUN line, minus BuildKit's cache mounts (the machine's own pnpm store is warm).
  // Native addons build against the running Node's headers (scripts/lib/node-headers.mjs).
  const nativeHeaders = { npm_config_nodedir: matchingNodeDir() };
  const t0 = Date.now();
  const result = spawnSync('sh', ['-c', command], { cwd, env: { ...process.env, ...nativeHeaders, ...env, NODE_OPTIONS: '' }, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (result.status !== 0) throw new Error(`${at} failed (${result.status}): ${command}\n${(result.stdout + result.stderr).slice(-4000)}`);
  log(`${at} ran in ${((Date.now() - t0) / 1000).toFixed(1)}s: ${command.slice(0, 90)}`);
}

/** The native addons hold what loads on this platform only (scripts/build-runtime.mjs natives). */
function nativesSlimmed(name, app) {
  const store = join(app, 'node_modules', '.pnpm');
  const left = [];
  for (const version of readdirSync(store)) {
    // `name@1.0.0` or `@scope+name@1.0.0`, with peers after an underscore.
    const packageName = version.startsWith('@') ? `@${version.slice(1).split('@')[0].replace('+', '/')}` : version.split('@')[0];
    const pkg = join(store, version, 'node_modules', packageName);
    if (!existsSync(join(pkg, 'binding.gyp'))) continue;
    for (const extra of ['src', 'deps', join('build', 'Release', 'obj.target')]) if (existsSync(join(pkg, extra))) left.push(join(version, extra));
    const prebuilds = existsSync(join(pkg, 'prebuilds')) ? readdirSync(join(pkg, 'prebuilds')) : [];
    left.push(...prebuilds.filter((entry) => !entry.startsWith(`linux-${process.arch}`) && !entry.startsWith(`linuxmusl-${process.arch}`)).map((entry) => join(version, 'prebuilds', entry)));
  }
  if (left.length) throw new Error(`${name} image: native addons keep files nothing loads here: ${left.slice(0, 5).join(', ')}`);
  log(`${name} image: native addons hold no C sources, build leftovers or other platforms' binaries`);
}

/**
 * The dependencies the server's build inlines (`svcBuild.inline` in its manifest, see
 * scripts/build-packages.mjs) are not installed beside it: the built files do not load them, and
 * what only they need (libphonenumber-js for class-validator) stays out of the image too. The
 * server's start in checkImages then shows that nothing asks for them.
 */
function inlinedNotInstalled(name, app) {
  const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'));
  const inlined = manifest.svcBuild?.inline ?? [];
  if (!inlined.length) throw new Error(`${name} image: its package.json names no inlined dependency (svcBuild.inline)`);
  const entries = readdirSync(join(app, 'node_modules', '.pnpm'));
  const installed = entries.filter((entry) => [...inlined, 'libphonenumber-js'].some((pkg) => entry.startsWith(`${pkg.replace('/', '+')}@`)));
  if (installed.length) throw new Error(`${name} image: installs what its build inlines: ${installed.join(', ')}`);
  log(`${name} image: ${inlined.join(', ')} inlined in the built files, not installed`);
}

/**
 * The image holds the packages' built JavaScript only: no TypeScript source in the app or in any
 * @svc package (declarations aside), and no TypeScript loader among the dependencies.
 */
function builtOutputOnly(name, app) {
  const store = join(app, 'node_modules', '.pnpm');
  const entries = existsSync(store) ? readdirSync(store) : [];
  const loaders = entries.filter((entry) => /^(tsx|ts-node|typescript|esbuild|@esbuild)[@+]/.test(entry));
  if (loaders.length) throw new Error(`${name} image: a TypeScript toolchain among its dependencies: ${loaders.join(', ')}`);
  const ours = [
    app,
    ...entries
      .filter((entry) => entry.startsWith('@svc+'))
      .flatMap((entry) => {
        const scope = join(store, entry, 'node_modules', '@svc');
        return readdirSync(scope).map((pkg) => join(scope, pkg));
      }),
  ];
  const sources = [];
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(c|m)?ts$/.test(entry.name) && !/\.d\.(c|m)?ts$/.test(entry.name)) sources.push(path);
    }
  };
  for (const dir of ours) visit(dir);
  if (sources.length) throw new Error(`${name} image: TypeScript sources in the image: ${sources.slice(0, 5).join(', ')}`);
  log(`${name} image: ${ours.length - 1} @svc package folder(s) beside the app, built JavaScript only, no TypeScript loader`);
}

/**
 * The image's LD_PRELOAD (docker/api.Dockerfile: jemalloc, at a path of the image's own) as this
 * machine's copy of the same library, found with `ldconfig -p`: the replay, and the bench's built
 * rows after it, run the image's malloc. A machine without it (apt-get install libjemalloc2) runs
 * the C library's, which the log says; the variable is then left out, or the loader would print
 * an error for every process.
 */
function preloadHere(env) {
  if (!env.LD_PRELOAD || existsSync(env.LD_PRELOAD)) return env;
  const name = posix.basename(env.LD_PRELOAD);
  const abi = { x64: 'x86-64', arm64: 'AArch64' }[process.arch];
  const listed = ['ldconfig', '/sbin/ldconfig'].map((command) => spawnSync(command, ['-p'], { encoding: 'utf8' }).stdout ?? '').find(Boolean) ?? '';
  const here = listed
    .split('\n')
    .map((line) => /^\s*(\S+) \(([^)]*)\) => (\S+)$/.exec(line))
    .find((match) => match && match[1] === name && (!abi || match[2].includes(abi)))?.[3];
  if (here) {
    log(`the image preloads ${env.LD_PRELOAD}: replayed with this machine's ${here}`);
    return { ...env, LD_PRELOAD: here };
  }
  const { LD_PRELOAD: _absent, ...rest } = env;
  log(`the image preloads ${env.LD_PRELOAD}, which this machine lacks (${name}): replayed with the C library's malloc`);
  return rest;
}

/** Starts a runtime stage's CMD and resolves with its URL once it logs `pattern` (a port). */
function start(name, image, env, pattern) {
  const [command, ...args] = image.cmd;
  const child = spawn(command === 'node' ? process.execPath : command, args, { cwd: image.cwd, env: { PATH: process.env.PATH, ...image.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 90 s:\n${output}`)), 90_000);
    void exited.then(({ code }) => reject(new Error(`${name} exited with ${code} before listening:\n${output}`)));
    const collect = (chunk) => {
      output += chunk;
      const port = pattern.exec(output)?.[1];
      if (!port) return;
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${port}`, env: { ...image.env, ...env }, output: () => output, exited, child });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', (chunk) => (output += chunk));
  });
}

async function stop(name, running) {
  running.child.kill('SIGTERM');
  const { code, signal } = await Promise.race([running.exited, new Promise((r) => setTimeout(() => r({ code: 'timeout' }), 15_000))]);
  children.delete(running.child);
  if (code !== 0) throw new Error(`${name}: SIGTERM ended it with ${code ?? signal}, not 0:\n${running.output()}`);
  log(`${name} stopped on SIGTERM with exit code 0`);
}

/**
 * The HEALTHCHECK command, run as Docker would inside the container, where the service listens on
 * its configured port (`portVariable`); here it listens on the free port it was given.
 */
function healthcheck(name, image, running, portVariable) {
  const [command, ...args] = image.healthcheck;
  const env = { PATH: process.env.PATH, ...running.env, [portVariable]: new URL(running.url).port };
  const result = spawnSync(command === 'node' ? process.execPath : command, args, { env, timeout: 10_000 });
  if (result.status !== 0) throw new Error(`${name}: HEALTHCHECK exited with ${result.status}`);
  log(`${name}: HEALTHCHECK passed`);
}

async function call(base, method, path, { body, headers = {}, expect } = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
    redirect: 'manual',
  });
  const text = await response.text();
  if (response.status !== expect) throw new Error(`${method} ${path}: expected ${expect}, got ${response.status}: ${text.slice(0, 500)}`);
  const type = response.headers.get('content-type') ?? '';
  return { headers: response.headers, body: type.includes('json') ? JSON.parse(text) : text };
}

function cli(image, env, ...args) {
  const result = spawnSync(process.execPath, ['dist/cli.js', ...args], { cwd: image.cwd, env: { PATH: process.env.PATH, ...image.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`svc ${args.join(' ')} exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function checkImages(api, proxy) {
  const dataDir = join(work, 'data');
  const secrets = {
    NODE_ENV: 'production',
    SVC_ADMIN_TOKEN: `image-steps-${Date.now()}-0123456789abcdefghijklmnop`,
    SVC_MASTER_KEY: 'ab'.repeat(32),
    SVC_DATA_DIR: dataDir,
    // The cost of the check, not of production (default 12).
    SVC_BCRYPT_COST: '4',
  };
  const server = await start('api', api, { ...secrets, PORT: '0' }, /svc API listening on port (\d+)/);
  log(`api listening at ${server.url} (NODE_ENV=production, SQLite in a fresh data folder)`);
  healthcheck('api', api, server, 'PORT');
  await call(server.url, 'GET', '/healthz', { expect: 200 });
  await call(server.url, 'GET', '/readyz', { expect: 200 });
  const openapi = (await call(server.url, 'GET', '/api/openapi.json', { expect: 200 })).body;
  if (!String(openapi.openapi).startsWith('3.1')) throw new Error('GET /api/openapi.json is not an OpenAPI 3.1 document');
  const page = (await call(server.url, 'GET', '/api/docs', { expect: 200 })).body;
  for (const asset of page.match(/(?:src|href)="([^"]+)"/g).map((attr) => attr.split('"')[1])) {
    await call(server.url, 'GET', new URL(asset, `${server.url}/api/docs`).pathname, { expect: 200 });
  }
  log('api: /healthz, /readyz, /api/openapi.json and the reference page with its assets answer');
  // The admin console ships in the image: its page and the files it loads.
  const consolePage = (await call(server.url, 'GET', '/console', { expect: 200 })).body;
  const consoleAssets = consolePage.match(/(?:src|href)="([^"]+)"/g).map((attr) => attr.split('"')[1]);
  if (!consoleAssets.includes('/console/console.js')) throw new Error('the console page does not load /console/console.js');
  for (const asset of consoleAssets) await call(server.url, 'GET', asset, { expect: 200 });
  log('api: the admin console page and its script and stylesheet answer');

  const check = cli(api, secrets, 'migrate', '--check');
  if (!check.upToDate) throw new Error(`migrate --check after start: ${JSON.stringify(check)}`);
  const created = cli(api, secrets, 'project:create', '--name', 'Image check');
  log(`image CLI: migrate --check up to date; project:create made ${created.project.id}`);
  const key = { 'X-API-Key': created.apiKeys.sandbox };
  const account = { email: 'ada@example.com', password: 'correct horse battery' };
  await call(server.url, 'POST', '/api/auth/signup', { headers: key, body: account, expect: 201 });
  const login = (await call(server.url, 'POST', '/api/auth/login', { headers: key, body: account, expect: 200 })).body;
  const me = (await call(server.url, 'GET', '/api/auth/me', { headers: { ...key, authorization: `Bearer ${login.data.accessToken}` }, expect: 200 })).body;
  if (me.data.user.email !== account.email) throw new Error('/me answered another user');
  log('api: sign-up, login and /me with the new project key work');
  if (api.env.LD_PRELOAD) {
    // The image's malloc is in the server it runs: the loader skips an LD_PRELOAD it cannot load with only a line on stderr.
    const maps = readFileSync(`/proc/${server.child.pid}/maps`, 'utf8');
    if (!maps.includes(realpathSync(api.env.LD_PRELOAD))) throw new Error(`api: ${api.env.LD_PRELOAD} (LD_PRELOAD) is not loaded in the server`);
    log(`api: runs with the image's malloc, ${api.env.LD_PRELOAD} (LD_PRELOAD, MALLOC_CONF=${api.env.MALLOC_CONF ?? ''})`);
  }

  const demo = join(proxy.cwd, 'demo');
  const front = await start('proxy', proxy, { SVC_API_KEY: created.apiKeys.sandbox, SVC_API_URL: server.url, PROXY_PORT: '0', PROXY_STATIC_DIR: demo }, /listening on http:\/\/localhost:(\d+)/);
  healthcheck('proxy', proxy, front, 'PROXY_PORT');
  const index = (await call(front.url, 'GET', '/', { expect: 200 })).body;
  if (!index.includes('<script')) throw new Error('the proxy did not serve the demo page');
  const signup = await call(front.url, 'POST', '/api/session/signup', { body: { email: 'grace@example.com', password: 'another long one' }, expect: 201 });
  const cookies = signup.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
  const session = (await call(front.url, 'GET', '/api/session/session', { headers: { cookie: cookies }, expect: 200 })).body;
  if (session.data.user.email !== 'grace@example.com') throw new Error('the proxy session is not the signed-up user');
  log('proxy: serves the demo, signs up through the API and keeps the session in cookies');

  await stop('proxy', front);
  await stop('api', server);
  if (!server.output().includes('"msg":"stopped"')) throw new Error('the API did not log its clean stop');
  if (!existsSync(join(dataDir, 'svc.sqlite'))) throw new Error('no SQLite database in the data folder');
}
