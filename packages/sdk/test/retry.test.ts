import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { backoffMs, parseRetryAfter } from '../src/retry';
import { createSvcClient as createWithFetch, resolveBaseUrl, DEFAULT_BASE_URL, type SvcClientOptions } from '../src';
import { undiciRequester } from '../src/node';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

const open = new Set<Server>();

function closeServer(server: Server): Promise<void> {
  open.delete(server);
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

// A test that fails before its own close() would otherwise leave its server listening, and jest
// waiting for it after the run.
afterEach(() => Promise.all([...open].map(closeServer)));

/** A tiny HTTP server that plays `steps` in order (the last one repeats) and counts requests. */
async function scripted(steps: Step[]): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((req, res) => steps[Math.min(count++, steps.length - 1)](req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.add(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => count,
    close: () => closeServer(server),
  };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
const limited = (retryAfter: string) => json(429, { error: 'rate_limited', message: 'Too many requests.' }, { 'Retry-After': retryAfter });
const dropConnection: Step = (req) => req.socket.destroy();
const fast = { retries: 3, baseMs: 1, maxMs: 2_000 };

// Every behaviour of the transport holds with both requesters: the default (global fetch) and
// undici's request (`@svc/sdk/node`, what the session proxy uses).
const REQUESTERS: Array<[string, (options: SvcClientOptions) => ReturnType<typeof createWithFetch>]> = [
  ['fetch', (options) => createWithFetch(options)],
  ['undici', (options) => createWithFetch({ ...options, request: undiciRequester() })],
];

describe.each(REQUESTERS)('retries (%s)', (_name, createSvcClient) => {
  it('retries a safe call after 429, honouring Retry-After', async () => {
    const server = await scripted([limited('1'), json(200, { data: { poweredByService: false } })]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: fast });
    const started = Date.now();
    expect(await svc.branding()).toEqual({ poweredByService: false });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.hits()).toBe(2);
    await server.close();
  });

  it('never retries login on 429, and reports retryAfter', async () => {
    const server = await scripted([limited('0'), json(200, { data: {} })]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: fast });
    await expect(svc.login({ email: 'a@example.com', password: 'whatever1' })).rejects.toMatchObject({ code: 'rate_limited', status: 429, retryAfter: 0 });
    expect(server.hits()).toBe(1);
    await server.close();
  });

  it('does not wait for a Retry-After longer than maxMs', async () => {
    const server = await scripted([limited('3600'), json(200, { data: { success: true } })]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: fast });
    await expect(svc.magicLink({ email: 'a@example.com' })).rejects.toMatchObject({ code: 'rate_limited', retryAfter: 3600 });
    expect(server.hits()).toBe(1);
    await server.close();
  });

  it('retries safe calls on network errors, but not refresh', async () => {
    const server = await scripted([dropConnection, dropConnection, json(200, { data: { success: true } })]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: fast });
    expect(await svc.logout({ refreshToken: 'r' })).toEqual({ success: true });
    expect(server.hits()).toBe(3);
    const once = await scripted([dropConnection, json(200, { data: {} })]);
    const unsafe = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: once.url, retry: fast });
    await expect(unsafe.refresh({ refreshToken: 'r' })).rejects.toMatchObject({ code: 'network_error', status: 0 });
    expect(once.hits()).toBe(1);
    await Promise.all([server.close(), once.close()]);
  });

  it('gives up after `retries` extra attempts', async () => {
    const server = await scripted([limited('0')]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: { ...fast, retries: 2 } });
    await expect(svc.branding()).rejects.toMatchObject({ code: 'rate_limited' });
    expect(server.hits()).toBe(3);
    await server.close();
  });

  it('sends the key, the client address, the device id, the token and a JSON body; follows no redirect', async () => {
    const seen: Array<{ method?: string; headers: IncomingMessage['headers']; body: string }> = [];
    const record: Step = (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        json(200, { data: { user: { id: 'u1' } } })(req, res);
      });
    };
    const server = await scripted([record, record, (_req, res) => res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' }).end()]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: { retries: 0 } });
    expect(await svc.me({ accessToken: 'tok', clientIp: '203.0.113.9', deviceId: 'dev-1' })).toEqual({ user: { id: 'u1' } });
    await svc.refresh({ refreshToken: 'r1' });
    expect(seen[0]).toMatchObject({
      method: 'GET',
      body: '',
      headers: { 'x-api-key': 'svc_sbx_k', 'x-svc-client-ip': '203.0.113.9', 'x-svc-device-id': 'dev-1', authorization: 'Bearer tok', accept: 'application/json' },
    });
    expect(seen[1]).toMatchObject({ method: 'POST', body: '{"refreshToken":"r1"}', headers: { 'content-type': 'application/json' } });
    expect(seen[1].headers['x-svc-device-id']).toBeUndefined();
    await expect(svc.branding()).rejects.toMatchObject({ code: 'http_302', status: 302 });
    expect(server.hits()).toBe(3);
    await server.close();
  });

  it('reports a non-envelope answer by its status', async () => {
    const server = await scripted([(_req, res) => res.writeHead(502, { 'Content-Type': 'text/html' }).end('<h1>Bad gateway</h1>')]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, retry: { retries: 0 } });
    await expect(svc.signup({ email: 'a@example.com', password: 'whatever1' })).rejects.toMatchObject({ code: 'http_502', status: 502 });
    await server.close();
  });
});

describe('backoff and configuration', () => {
  it('takes fetch or request, not both', () => {
    expect(() => createWithFetch({ apiKey: 'svc_sbx_k', fetch, request: undiciRequester() })).toThrow(/fetch or request/);
  });

  it('draws full-jitter waits within the exponential ceiling', () => {
    const options = { retries: 5, baseMs: 100, maxMs: 1_000 };
    expect(backoffMs(0, options, () => 0.999)).toBe(99);
    expect(backoffMs(3, options, () => 0.5)).toBe(400);
    expect(backoffMs(10, options, () => 0.999)).toBe(999);
    expect(backoffMs(2, options, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('12')).toBe(12);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('falls back from the option to SVC_API_URL, SVC_BASE_URL, then the default', () => {
    expect(resolveBaseUrl('https://auth.example.com/', { SVC_API_URL: 'http://a' })).toBe('https://auth.example.com');
    expect(resolveBaseUrl(undefined, { SVC_API_URL: 'http://a:1', SVC_BASE_URL: 'http://b:2' })).toBe('http://a:1');
    expect(resolveBaseUrl(undefined, { SVC_API_URL: ' ', SVC_BASE_URL: 'http://b:2' })).toBe('http://b:2');
    expect(resolveBaseUrl(undefined, {})).toBe(DEFAULT_BASE_URL);
    expect(() => resolveBaseUrl('ftp://x', {})).toThrow(/http/);
  });
});

describe.each(REQUESTERS)('deadlines (%s)', (_name, createSvcClient) => {
  const silent: Step = () => undefined; // accepts the request and never answers
  const slowBody: Step = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"data":'); // headers arrive, the rest of the body never does
  };
  const realSetTimeout = global.setTimeout;
  const realClearTimeout = global.clearTimeout;

  it('gives up after timeoutMs, also while the body is still arriving, as network_error', async () => {
    const server = await scripted([silent]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, timeoutMs: 100, retry: { ...fast, retries: 0 } });
    await expect(svc.me({ accessToken: 'a' })).rejects.toMatchObject({ code: 'network_error', status: 0 });
    await server.close();
    const slow = await scripted([slowBody]);
    const client = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: slow.url, timeoutMs: 100, retry: { ...fast, retries: 0 } });
    await expect(client.me({ accessToken: 'a' })).rejects.toMatchObject({ code: 'network_error', status: 0 });
    await slow.close();
  });

  it("stops at once when the caller's signal aborts, before or during the call", async () => {
    const server = await scripted([silent]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, timeoutMs: 60_000, retry: fast });
    const controller = new AbortController();
    const call = svc.me({ accessToken: 'a', signal: controller.signal });
    setImmediate(() => controller.abort(new Error('user went away')));
    await expect(call).rejects.toThrow('user went away');
    await expect(svc.me({ accessToken: 'a', signal: AbortSignal.abort(new Error('already gone')) })).rejects.toThrow('already gone');
    expect(server.hits()).toBeLessThanOrEqual(1); // never retried
    await server.close();
  });

  it('leaves no timer behind once a call has ended', async () => {
    const server = await scripted([json(200, { data: { poweredByService: true } })]);
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: server.url, timeoutMs: 60_000, retry: fast });
    // The calls' own deadline timers (60 s here), not the process's: the HTTP stack keeps
    // keep-alive timers of its own, whose number depends on the machine's load. A deadline timer
    // is set for what is left of the attempt, so a busy machine may give it 59,999 ms.
    const started = new Set<unknown>();
    const cleared = new Set<unknown>();
    // Every argument passed on: the HTTP stack's own timers hand their callbacks arguments.
    const set = jest.spyOn(global, 'setTimeout').mockImplementation(((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      const handle = realSetTimeout(fn, ms, ...args);
      if (ms !== undefined && ms > 55_000 && ms <= 60_000) started.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clear = jest.spyOn(global, 'clearTimeout').mockImplementation((handle) => {
      cleared.add(handle);
      realClearTimeout(handle);
    });
    try {
      for (let i = 0; i < 5; i += 1) await svc.branding();
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
    expect(started.size).toBe(5);
    expect([...started].filter((handle) => !cleared.has(handle))).toEqual([]);
    await server.close();
  });
});
