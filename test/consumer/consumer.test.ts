import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { signUpAndOpenGuardedRoute } from './support/browser';
import { attwProblems, gzippedSize, inBatches, publintProblems, publishDryRun } from './support/checks';
import { prepareConsumerApp, ROOT, run, runJson, type ConsumerApp } from './support/consumer-app';
import { docSamples } from './support/doc-samples';
import { DOCUMENTED_ENTRIES, DOCUMENTED_EXPORTS } from './support/documented';
import { bundleForEdge, webGlobals } from './support/edge';
import { freePort, start, type Running } from './support/processes';

// The packages as a customer gets them: every public package packed (`pnpm pack:packages`),
// installed from the tarballs with plain `npm install` into a temporary app outside the
// workspace, then used from plain Node (ES modules and CommonJS), tsc, the `svc` bin, customers'
// Express and Hono apps, an edge bundler and the SDK. test/consumer/README.md says what each part proves.

const log = (line: string) => console.log(`[consumer] ${line}`);
let app: ConsumerApp;

beforeAll(async () => {
  app = await prepareConsumerApp(log);
  log(`tarballs: ${app.tarballs.map((tarball) => `${tarball.name} ${(tarball.size / 1024).toFixed(1)} KiB`).join(', ')}`);
}, 900_000);
afterAll(() => app?.remove());

const installed = (name: string, ...path: string[]) => join(app.dir, 'node_modules', ...name.split('/'), ...path);
const manifestOf = (name: string) => JSON.parse(readFileSync(installed(name, 'package.json'), 'utf8'));

/** Every subpath of every package: `@svc/core`, `@svc/core/testing`, ... with whether it has a require build. */
function entryPoints(): { specifier: string; require: boolean }[] {
  return app.tarballs.flatMap(({ name }) =>
    Object.entries(manifestOf(name).exports as Record<string, unknown>)
      .filter(([subpath]) => subpath !== './package.json')
      .map(([subpath, target]) => ({ specifier: subpath === '.' ? name : `${name}${subpath.slice(1)}`, require: typeof target === 'object' && target !== null && 'require' in target })),
  );
}

describe('the tarballs', () => {
  it('hold the built files with source maps that carry their sources, no tests, no workspace: range, one version', () => {
    const versions = new Set(app.tarballs.map((tarball) => tarball.version));
    expect(versions.size).toBe(1);
    for (const tarball of app.tarballs) {
      const files = run('tar', ['-tzf', tarball.file], { cwd: ROOT })
        .trim()
        .split('\n')
        .map((file) => file.replace(/^package\//, ''));
      expect({ name: tarball.name, strays: files.filter((file) => /(^|\/)(test|tests|fixtures|__tests__)\/|\.test\.|\.ts$/.test(file) && !/\.d\.m?ts$/.test(file)) }).toEqual({
        name: tarball.name,
        strays: [],
      });
      expect(files).toEqual(expect.arrayContaining(['package.json', 'LICENSE', 'README.md']));
      const manifest = manifestOf(tarball.name);
      expect({ name: tarball.name, workspace: JSON.stringify(manifest).includes('workspace:') }).toEqual({ name: tarball.name, workspace: false });
      expect(manifest).toMatchObject({ license: 'MIT', engines: { node: '>=20.19' }, type: 'commonjs' });
      for (const map of files.filter((file) => file.endsWith('.map'))) {
        const { sources, sourcesContent } = JSON.parse(readFileSync(installed(tarball.name, map), 'utf8'));
        const contents: unknown[] = sourcesContent ?? [];
        expect({ map, complete: contents.length === sources.length && contents.every((text) => typeof text === 'string') }).toEqual({ map, complete: true });
      }
    }
  });

  it('are what `npm publish --dry-run` accepts without a warning', async () => {
    const results = await inBatches(app.tarballs, 4, async (tarball) => ({ name: tarball.name, ...(await publishDryRun(tarball, app.dir)) }));
    expect(results).toEqual(app.tarballs.map(({ name }) => ({ name, code: 0, warnings: [] })));
  }, 120_000);

  it('pass publint (suggestions included) and arethetypeswrong (import, require, bundlers)', async () => {
    const results = await inBatches(app.tarballs, 2, async (tarball) => ({ name: tarball.name, publint: await publintProblems(tarball), attw: await attwProblems(tarball) }));
    expect(results).toEqual(app.tarballs.map(({ name }) => ({ name, publint: [], attw: [] })));
  }, 300_000);

  it('keep @svc/client within its size budget (gzip): 2.5 KB for bundlers, 4.5 KB as one file with WebAuthn', () => {
    const sizes = { bundler: gzippedSize(installed('@svc/client', 'dist', 'index.mjs')), oneFile: gzippedSize(installed('@svc/client', 'dist', 'browser', 'svc-client.js')) };
    log(`@svc/client gzipped: ${sizes.bundler} B (dist/index.mjs), ${sizes.oneFile} B (dist/browser/svc-client.js)`);
    expect(sizes.bundler).toBeLessThanOrEqual(2_500);
    expect(sizes.oneFile).toBeLessThanOrEqual(4_500);
  });
});

describe('entry points from plain Node', () => {
  it('every entry point loads with import() and with require(), with the same named exports', () => {
    const entries = entryPoints();
    const esm = runJson<Record<string, string[] | { error: string }>>(app, 'entry-points.mjs', [JSON.stringify(entries.map((entry) => entry.specifier))]);
    const cjs = runJson<Record<string, string[] | { error: string }>>(app, 'entry-points.cjs', [JSON.stringify(entries.filter((entry) => entry.require).map((entry) => entry.specifier))]);
    for (const { specifier, require } of entries) {
      expect({ specifier, loaded: Array.isArray(esm[specifier]) ? 'yes' : esm[specifier] }).toEqual({ specifier, loaded: 'yes' });
      expect((esm[specifier] as string[]).length).toBeGreaterThan(0);
      if (require) expect({ specifier, cjs: cjs[specifier] }).toEqual({ specifier, cjs: esm[specifier] });
    }
    expect(entries.map((entry) => entry.specifier)).toEqual(expect.arrayContaining(DOCUMENTED_ENTRIES));
    for (const [specifier, names] of Object.entries(DOCUMENTED_EXPORTS)) {
      expect({ specifier, missing: names.filter((name) => !(esm[specifier] as string[]).includes(name)) }).toEqual({ specifier, missing: [] });
    }
  }, 120_000);

  it("the README's import line runs in an ES module", () => {
    expect(runJson(app, 'readme-import.mjs')).toEqual({ baseUrl: 'http://127.0.0.1:9', challenge: true, svcError: true });
  });
});

describe('types', () => {
  it('a TypeScript consumer of every entry point compiles under nodenext (ES module and CommonJS) and bundler', () => {
    const types = join(app.dir, 'types');
    copyFileSync(join(types, 'consumer.ts'), join(types, 'consumer.mts'));
    copyFileSync(join(types, 'consumer.ts'), join(types, 'consumer.cts'));
    const strict = { strict: true, skipLibCheck: false, noEmit: true, target: 'ES2022', lib: ['ES2023', 'DOM'], types: ['node'], esModuleInterop: true };
    tsc(types, 'tsconfig.nodenext.json', { compilerOptions: { ...strict, module: 'nodenext', moduleResolution: 'nodenext' }, files: ['consumer.mts', 'consumer.cts'] });
    tsc(types, 'tsconfig.bundler.json', { compilerOptions: { ...strict, module: 'esnext', moduleResolution: 'bundler' }, files: ['consumer.ts'] });
  }, 120_000);

  it('every TypeScript sample of README.md, docs/ and the package READMEs compiles against the packages', () => {
    const folders = app.tarballs.map(({ name }) => manifestOf(name).repository.directory as string);
    const samples = docSamples(ROOT, folders);
    expect(samples.length).toBeGreaterThan(5);
    const dir = join(app.dir, 'samples');
    mkdirSync(dir, { recursive: true });
    for (const sample of samples) writeFileSync(join(dir, sample.file), sample.source);
    // skipLibCheck: the packages' declarations are checked strictly by the test above.
    const options = { strict: true, noEmit: true, skipLibCheck: true, target: 'ES2022', lib: ['ES2023'], types: ['node'] };
    const nodenext = samples.filter((sample) => sample.resolution === 'nodenext').map((sample) => sample.file);
    const bundler = samples.filter((sample) => sample.resolution === 'bundler').map((sample) => sample.file);
    tsc(dir, 'tsconfig.json', { compilerOptions: { ...options, module: 'nodenext', moduleResolution: 'nodenext' }, files: nodenext });
    if (bundler.length) tsc(dir, 'tsconfig.bundler.json', { compilerOptions: { ...options, module: 'esnext', moduleResolution: 'bundler' }, files: bundler });
    log(`type-checked ${samples.length} documentation samples (${bundler.length} as a Next.js app compiles them)`);
  }, 120_000);
});

function tsc(dir: string, name: string, config: object): void {
  writeFileSync(join(dir, name), JSON.stringify(config, null, 2));
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, name)], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  expect({ config: name, errors: (result.stdout + result.stderr).trim() }).toEqual({ config: name, errors: '' });
}

describe('the installed svc bin, a customer app and the SDK', () => {
  let api: Running;
  let apiUrl: string;
  let project: { projectId: string; apiKeys: { sandbox: string; production: string } };
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-consumer-data-'));
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    // The embedded default (SQLite, memory rate limits, file mailbox) in a fresh data folder.
    api = await start(installed('.bin', 'svc'), ['start'], {
      name: 'svc start',
      cwd: app.dir,
      env: { PATH: process.env.PATH, PORT: String(port), SVC_BASE_URL: apiUrl, SVC_DATA_DIR: dataDir, SVC_BCRYPT_COST: '4' },
      ready: /svc API listening on port (\d+)/,
    });
    expect(api.match[1]).toBe(String(port));
    project = JSON.parse(readFileSync(join(dataDir, 'demo-project.json'), 'utf8'));
  }, 120_000);

  afterAll(async () => {
    if (api) expect(await api.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('`svc start` serves the API, its OpenAPI document, the reference page and the console from the installed package', async () => {
    expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
    const openapi = (await (await fetch(`${apiUrl}/api/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toMatch(/^3\.1/);
    const page = await (await fetch(`${apiUrl}/api/docs`)).text();
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1], `${apiUrl}/api/docs`).href);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) expect({ asset, status: (await fetch(asset)).status }).toEqual({ asset, status: 200 });
    // The admin console ships in the package (console/): its page and the files it loads.
    const consolePage = await (await fetch(`${apiUrl}/console`)).text();
    const consoleAssets = [...consolePage.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => new URL(match[1], apiUrl).href);
    expect(consoleAssets).toContain(`${apiUrl}/console/console.js`);
    for (const asset of consoleAssets) expect({ asset, status: (await fetch(asset)).status }).toEqual({ asset, status: 200 });
  });

  it('`svc start` checks requests with the class-validator its build inlines (its licence beside it); neither it nor libphonenumber-js is installed', async () => {
    for (const name of ['class-validator', 'libphonenumber-js']) expect({ name, installed: existsSync(installed(name)) }).toEqual({ name, installed: false });
    expect(readFileSync(installed('@svc/server', 'dist', 'licenses', 'class-validator', 'LICENSE'), 'utf8')).toMatch(/MIT License/);
    // The production environment's key: its sign-up limit is not the one the customer apps below count on.
    const signUp = async (body: unknown) => {
      const res = await fetch(`${apiUrl}/api/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': project.apiKeys.production }, body: JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    // One check per kind the DTOs use: validator's e-mail test, a length, a type, a custom check.
    expect(await signUp({ email: 'not-an-email', password: 'long enough' })).toEqual({ status: 400, body: { error: 'validation_error', message: 'email must be a valid e-mail address.' } });
    expect(await signUp({ email: 'a@b.com', password: 'short' })).toEqual({ status: 400, body: { error: 'validation_error', message: 'password must be at least 8 characters long.' } });
    expect(await signUp({ email: 'a@b.com', password: 12345678 })).toEqual({ status: 400, body: { error: 'validation_error', message: 'password must be a string.' } });
    expect(await signUp({ email: 'a@b.com', password: 'long enough', meta: [1, 2] })).toEqual({ status: 400, body: { error: 'validation_error', message: 'meta must be a JSON object.' } });
  });

  /** Starts a customer app of `app/` against the API; it prints its port. */
  const startApp = (file: string) =>
    start(process.execPath, [file], { name: file, cwd: app.dir, env: { PATH: process.env.PATH, SVC_API_KEY: project.apiKeys.sandbox, SVC_API_URL: apiUrl }, ready: /"port":(\d+)/ });

  it("a customer's CommonJS Express app: the session proxy signs a browser up, reads the session, opens a guarded route", async () => {
    const express = await startApp('express-app.cjs');
    try {
      await signUpAndOpenGuardedRoute(`http://127.0.0.1:${express.match[1]}`, 'ada@example.com');
    } finally {
      expect(await express.stop()).toBe(0);
    }
  }, 60_000);

  it("a customer's Hono app (@hono/node-server): @svc/proxy/web signs a browser up, reads the session, opens a guarded route, signs out", async () => {
    const hono = await startApp('hono-app.mjs');
    try {
      const origin = `http://127.0.0.1:${hono.match[1]}`;
      const { browser } = await signUpAndOpenGuardedRoute(origin, 'grace@example.com');
      const signedIn = [...browser.cookies()].map(([name, value]) => `${name}=${value}`).join('; ');
      expect((await browser.request('POST', '/api/session/logout', {})).status).toBe(200);
      expect([...browser.cookies().keys()]).toEqual(['svc_did']);
      expect((await browser.request('GET', '/api/notes')).status).toBe(401);
      expect((await browser.request('GET', '/api/session/session')).status).toBe(401);
      // Sign-out ended the session at the API: the old cookies open nothing either.
      expect((await fetch(`${origin}/api/notes`, { headers: { cookie: signedIn } })).status).toBe(401);
    } finally {
      expect(await hono.stop()).toBe(0);
    }
  }, 60_000);

  it('@svc/proxy/web as installed (dist/web.mjs and dist/web.js), bundled for an edge runtime, needs no Node and signs up with Web APIs only', async () => {
    // The check bites: the Express entry needs Node and does not bundle so.
    await expect(bundleForEdge(app.dir, '@svc/proxy', 'import')).rejects.toThrow(/node:|Could not resolve/);
    for (const how of ['import', 'require'] as const) {
      const { code, inputs } = await bundleForEdge(app.dir, '@svc/proxy/web', how);
      expect(inputs).toContain(`node_modules/@svc/proxy/dist/web.${how === 'import' ? 'mjs' : 'js'}`);
      expect(inputs.filter((path) => path.startsWith('node:') || /node_modules\/(express|undici|body-parser)\//.test(path))).toEqual([]);
      const context = webGlobals();
      runInNewContext(code, context);
      const { createSessionHandler } = context.bundled as WebEntry;
      const proxy = createSessionHandler({ apiKey: project.apiKeys.sandbox, baseUrl: apiUrl });
      const origin = 'https://app.example.com';
      const email = `edge-${how}@example.com`;
      const signup = await proxy(
        new Request(`${origin}/api/session/signup`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Origin: origin },
          body: JSON.stringify({ email, password: 'correct horse battery' }),
        }),
      );
      expect({ how, status: signup.status }).toEqual({ how, status: 201 });
      const cookie = signup.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
      const session = await proxy(new Request(`${origin}/api/session/session`, { headers: { Cookie: cookie } }));
      expect(await session.json()).toMatchObject({ data: { user: { email } } });
      expect(['process', 'Buffer', 'require'].filter((name) => name in context)).toEqual([]);
    }
  }, 60_000);

  it('the SDK, from an ES module and from CommonJS, signs in and verifies the access token against the JWKS', () => {
    for (const file of ['sdk-verify.mjs', 'sdk-verify.cjs']) {
      const email = `${file.replace(/\W/g, '-')}@example.com`;
      const env = { SVC_API_KEY: project.apiKeys.sandbox, SVC_API_URL: apiUrl, SVC_PROJECT_ID: project.projectId, SVC_EMAIL: email };
      const answer = runJson<{ claims: Record<string, unknown>; userId: string; forged: string }>(app, file, [], env);
      expect(answer.claims).toMatchObject({ sub: answer.userId, aud: project.projectId, env: 'sandbox', iss: apiUrl, email });
      expect(answer.forged).toBe('invalid_token');
    }
  }, 60_000);
});

/** What the edge test calls of `@svc/proxy/web` (its own types are checked in the types test). */
interface WebEntry {
  createSessionHandler(options: { apiKey: string; baseUrl: string }): (request: Request) => Promise<Response>;
}

describe("@svc/server in a customer's CommonJS Express app", () => {
  it('mounted under /auth with createSvcServer(config): sign-up answers 201, /me the user, and stop() ends it cleanly', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-consumer-mounted-'));
    const adminToken = randomBytes(32).toString('base64url');
    let host: Running | undefined;
    try {
      host = await start(process.execPath, ['svc-mounted.cjs'], {
        name: 'svc-mounted.cjs',
        cwd: app.dir,
        env: { PATH: process.env.PATH, PORT: String(port), SVC_DATA_DIR: dataDir, SVC_ADMIN_TOKEN: adminToken },
        ready: /^\{"port":(\d+)\}$/m,
      });
      expect(await (await fetch(`${base}/`)).json()).toEqual({ app: 'mine' });
      const created = await postJson(`${base}/auth/admin/projects`, { name: 'Mounted' }, { Authorization: `Bearer ${adminToken}` });
      expect(created.status).toBe(201);
      const apiKey: string = created.body.data.apiKeys.sandbox;
      const signup = await postJson(`${base}/auth/api/auth/signup`, { email: 'mounted@example.com', password: 'correct horse battery' }, { 'X-API-Key': apiKey });
      expect(signup.status).toBe(201);
      const { accessToken, user } = signup.body.data;
      // Mounted under a path, the service names itself by it: the tokens' issuer.
      expect(JSON.parse(Buffer.from(accessToken.split('.')[1], 'base64url').toString()).iss).toBe(`${base}/auth`);
      const me = await fetch(`${base}/auth/api/auth/me`, { headers: { 'X-API-Key': apiKey, Authorization: `Bearer ${accessToken}` } });
      expect([me.status, await me.json()]).toEqual([200, { data: { user: expect.objectContaining({ id: user.id, email: 'mounted@example.com' }) } }]);
      // SIGTERM: svc.stop(), then the app's own server closes; the process must end by itself.
      expect(await host.stop()).toBe(0);
      expect(host.output()).toContain('{"stopped":{"drained":true,"afterStop":503}}');
    } finally {
      await host?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

async function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}
