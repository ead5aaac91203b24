import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchRequester, type HttpRequest, type HttpRequester } from '../src/http-requester';
import { createSvcClient } from '../src';
import { undiciRequester } from '../src/node';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server answering with `handler`, counting the TCP connections it accepted. */
async function serve(handler: Handler): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer(handler);
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const get = (signal = new AbortController().signal): HttpRequest => ({ method: 'GET', headers: { Accept: 'application/json' }, signal });

/** What a caller can read of one answer: the status, some headers, the body. */
async function read(requester: HttpRequester, url: string, request: HttpRequest = get()) {
  const answer = await requester(url, request);
  const headers = Object.fromEntries(['content-type', 'X-Multi', 'retry-after', 'location', 'x-absent'].map((name) => [name, answer.header(name)]));
  return { status: answer.status, headers, body: await answer.text() };
}

// The UTF-8 bytes of "é" (0xC3 0xA9) are split across two chunks on purpose.
const SPLIT = Buffer.from('{"data":{"name":"Zoé"}}');
const answers: Record<string, Handler> = {
  '/chunked': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Multi': ['a', 'b'] });
    const at = SPLIT.indexOf(0xc3) + 1;
    res.write(SPLIT.subarray(0, at));
    setImmediate(() => res.end(SPLIT.subarray(at)));
  },
  '/hints': (_req, res) => {
    res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
    // The final answer comes a moment later, so an interim answer taken for it would show.
    setTimeout(() => res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '7' }).end('{"error":"rate_limited","message":"Slow down."}'), 20);
  },
  '/empty': (_req, res) => res.writeHead(204).end(),
  '/redirect': (_req, res) => res.writeHead(302, { Location: '/elsewhere' }).end(),
  '/prefix/echo': (req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`${req.method} ${req.url} ${req.headers.accept}`),
};

describe('undiciRequester', () => {
  const handler: Handler = (req, res) => (answers[(req.url ?? '').split('?')[0]] ?? answers['/empty'])(req, res);

  it.each(['/chunked', '/hints', '/empty', '/redirect', '/prefix/echo?q=1&r=%2F'])('reads %s as the fetch requester does', async (path) => {
    const server = await serve(handler);
    const viaUndici = await read(undiciRequester(), `${server.url}${path}`);
    expect(viaUndici).toEqual(await read(fetchRequester(fetch), `${server.url}${path}`));
    expect(viaUndici.status).not.toBe(0);
    await server.close();
  });

  it('joins repeated headers, decodes a body split inside a character, skips 1xx answers', async () => {
    const server = await serve(handler);
    const send = undiciRequester();
    expect(await read(send, `${server.url}/chunked`)).toMatchObject({ status: 200, headers: { 'X-Multi': 'a, b', 'x-absent': null }, body: '{"data":{"name":"Zoé"}}' });
    expect(await read(send, `${server.url}/hints`)).toMatchObject({ status: 429, headers: { 'retry-after': '7' } });
    expect(await read(send, `${server.url}/prefix/echo?q=1`)).toMatchObject({ body: 'GET /prefix/echo?q=1 application/json' });
    // What URL would encode or drop is sent as URL has it (a base URL with a space, a fragment).
    expect(await read(send, `${server.url}/prefix/echo?q=a b#frag`)).toMatchObject({ body: 'GET /prefix/echo?q=a%20b application/json' });
    await server.close();
  });

  it('keeps one connection alive across calls, also after an answer it discarded', async () => {
    const server = await serve(handler);
    const send = undiciRequester();
    // undici hands a connection out again one event-loop turn after its answer ended.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) {
      expect((await read(send, `${server.url}/chunked`)).status).toBe(200);
      await turn();
    }
    await (await send(`${server.url}/hints`, get())).discard();
    await turn();
    expect((await read(send, `${server.url}/prefix/echo`)).status).toBe(200);
    expect(server.connections()).toBe(1);
    await server.close();
  });

  it('leaves no listener on the signal once the answer is read or the call failed', async () => {
    const server = await serve(handler);
    const send = undiciRequester();
    const done = new AbortController();
    await read(send, `${server.url}/chunked`, get(done.signal));
    expect(getEventListeners(done.signal, 'abort')).toHaveLength(0);
    const failed = new AbortController();
    await expect(send('http://127.0.0.1:1/unreachable', get(failed.signal))).rejects.toThrow();
    expect(getEventListeners(failed.signal, 'abort')).toHaveLength(0);
    await server.close();
  });

  it('rejects the body with the reason when the signal aborts while it arrives', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"data":'));
    const controller = new AbortController();
    const answer = await undiciRequester()(`${server.url}/slow`, get(controller.signal));
    const body = answer.text();
    controller.abort(new Error('caller gone'));
    await expect(body).rejects.toThrow('caller gone');
    await server.close();
  });

  // The transport's requests carry their limits as data; the requester enforces them with a timer
  // of its own, so no AbortController is made per call (bench/README.md, round 7).
  describe("with the transport's limits (timeoutMs, callerSignal)", () => {
    const limited = (timeoutMs: number, callerSignal?: AbortSignal): HttpRequest => ({
      method: 'GET',
      headers: { Accept: 'application/json' },
      timeoutMs,
      callerSignal,
      get signal(): AbortSignal {
        throw new Error('the undici requester must not read signal');
      },
    });
    const silent: Handler = () => undefined;
    const slowBody: Handler = (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"data":');

    it('gives up after timeoutMs, before the answer as while its body arrives, with a TimeoutError', async () => {
      const server = await serve((req, res) => (req.url === '/silent' ? silent : slowBody)(req, res));
      const send = undiciRequester();
      await expect(send(`${server.url}/silent`, limited(50))).rejects.toMatchObject({ name: 'TimeoutError' });
      const answer = await send(`${server.url}/slow`, limited(50));
      await expect(answer.text()).rejects.toMatchObject({ name: 'TimeoutError' });
      await server.close();
    });

    it("stops when the caller's signal aborts, before or during the call, and leaves no listener on it", async () => {
      const server = await serve(silent);
      const send = undiciRequester();
      await expect(send(server.url, limited(60_000, AbortSignal.abort(new Error('already gone'))))).rejects.toThrow('already gone');
      const controller = new AbortController();
      const call = send(server.url, limited(60_000, controller.signal));
      setTimeout(() => controller.abort(new Error('user went away')), 20);
      await expect(call).rejects.toThrow('user went away');
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      await server.close();
    });

    it('reads answers as before, and the SDK makes no AbortController for its calls', async () => {
      const server = await serve(handler);
      expect(await read(undiciRequester(), `${server.url}/chunked`, limited(60_000))).toMatchObject({ status: 200, body: '{"data":{"name":"Zoé"}}' });
      const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: `${server.url}/prefix/echo`, request: undiciRequester(), retry: { retries: 0 } });
      const made = jest.spyOn(global, 'AbortController');
      try {
        // The echo answers text/plain: the call fails as invalid_response, after a whole exchange.
        await expect(svc.branding()).rejects.toMatchObject({ code: 'invalid_response' });
        expect(made).not.toHaveBeenCalled();
      } finally {
        made.mockRestore();
      }
      await server.close();
    });
  });
});

// A requester of one's own reads `signal` (the transport makes it then): the deadline still counts
// from the attempt's start, and spreading the request into fetch's init keeps it.
describe('the transport with a requester that reads signal', () => {
  it('aborts at the deadline counted from the attempt, and the signal survives a spread', async () => {
    const seen: AbortSignal[] = [];
    const lateReader: HttpRequester = async (_url, request) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const { signal } = { ...request };
      seen.push(signal);
      return new Promise((_resolve, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    };
    const svc = createSvcClient({ apiKey: 'svc_sbx_k', baseUrl: 'http://127.0.0.1:1', request: lateReader, timeoutMs: 100, retry: { retries: 0 } });
    const started = Date.now();
    await expect(svc.branding()).rejects.toMatchObject({ code: 'network_error' });
    // Read 150 ms into a 100 ms attempt, the signal is already due: not 100 ms after the read.
    expect(Date.now() - started).toBeLessThan(240);
    expect(seen[0]).toBeInstanceOf(AbortSignal);
    expect(seen[0].reason).toMatchObject({ name: 'TimeoutError' });
  });
});
