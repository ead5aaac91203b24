import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { build, type Metafile } from 'esbuild';
import { PASSWORD, startRealApi, type RealApi } from './helpers';

// `@svc/proxy/web` must run where there is no Node: edge middleware, Deno, Bun, workers. It is
// bundled here the way a bundler for such a runtime does (platform `neutral`: no Node built-in
// resolves), then run in a bare JavaScript context holding only Web APIs (no `process`, no
// `Buffer`, no `require`), and that copy signs a user up against the real API.
const ENTRY = join(__dirname, '..', 'src', 'web.ts');

async function bundleWebEntry(): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'neutral',
    format: 'iife',
    globalName: 'svcProxyWeb',
    mainFields: ['module', 'main'],
    conditions: ['worker', 'browser'],
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

/** Only what a Web runtime offers. */
function webGlobals(): Record<string, unknown> {
  const names = [
    'fetch',
    'Request',
    'Response',
    'Headers',
    'URL',
    'URLSearchParams',
    'crypto',
    'TextEncoder',
    'TextDecoder',
    'btoa',
    'atob',
    'ReadableStream',
    'AbortController',
    'AbortSignal',
    'setTimeout',
    'clearTimeout',
    'structuredClone',
    'console',
  ];
  return Object.fromEntries(names.map((name) => [name, (globalThis as Record<string, unknown>)[name]]));
}

describe('the web entry (@svc/proxy/web)', () => {
  let api: RealApi;
  let bundled: { code: string; metafile: Metafile };

  beforeAll(async () => {
    api = await startRealApi();
    bundled = await bundleWebEntry();
  }, 30_000);
  afterAll(() => api.close());

  it('imports no Node built-in, no express and no undici, anywhere in its graph', () => {
    const inputs = Object.keys(bundled.metafile.inputs);
    expect(inputs.filter((path) => /node_modules\/(\.pnpm\/)?(express|undici|body-parser)/.test(path) || path.startsWith('node:'))).toEqual([]);
    // The check itself bites: the Express entry does not bundle for a neutral platform.
    return expect(build({ entryPoints: [join(__dirname, '..', 'src', 'index.ts')], bundle: true, platform: 'neutral', write: false, logLevel: 'silent' })).rejects.toThrow(/node:|Could not resolve/);
  }, 30_000);

  it('runs without process, Buffer or require: the bundled handler signs up and reads the session', async () => {
    const context = webGlobals();
    runInNewContext(bundled.code, context);
    const { createSessionHandler } = context.svcProxyWeb as typeof import('@svc/proxy/web');
    const { live } = await api.createProject();
    const proxy = createSessionHandler({ apiKey: live, baseUrl: api.url });
    const origin = 'https://app.example.com';
    const signup = await proxy(
      new Request(`${origin}/api/session/signup`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify({ email: 'edge@example.com', password: PASSWORD }),
      }),
      { clientIp: '203.0.113.7' },
    );
    expect(signup.status).toBe(201);
    const cookie = signup.headers
      .getSetCookie()
      .map((line) => line.split(';')[0])
      .join('; ');
    const session = await proxy(new Request(`${origin}/api/session/session`, { headers: { Cookie: cookie } }));
    expect(session.status).toBe(200);
    expect(((await session.json()) as { data: { user: { email: string } } }).data.user.email).toBe('edge@example.com');
    expect(['process', 'Buffer', 'require'].filter((name) => name in context)).toEqual([]);
  }, 30_000);
});
