import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import { createSvcClient, type HttpRequester, type SvcClient } from '@svc/sdk';
import { undiciRequester } from '@svc/sdk/node';
import { createProxyServerListener, createSessionProxy, requireUser, type RequireUserOptions, type SessionProxyOptions } from '../src';
import { normalizeBasePath } from '../src/core/options';
import { createSessionHandler, createUserGuard, type ClientIpReader } from '@svc/proxy/web';

export { startRealApi, type RealApi, type TestProject } from '../../../packages/sdk/test/real-api';
export { totpCode } from '../../../packages/sdk/test/totp-code';

export interface RunningProxy {
  url: string;
  /** Method and path of every call the proxy made to the API, in order. */
  upstream: string[];
  close(): Promise<void>;
}

/**
 * The ways the proxy is mounted, and every route suite runs against each: the Express router in a
 * host app that parses no body, the same after the host's own `express.json()`, and the
 * web-standard handler and guard served by `@hono/node-server` (Request in, Response out).
 */
export const ADAPTERS = ['express', 'express after express.json()', 'web'] as const;

/**
 * The adapters plus the standalone server (`createProxyServerListener`) with its own client, as
 * `svc-proxy` runs: its `GET session` takes the shortcut past the SDK (server.ts), so the suites
 * about that route run against it too. Its calls are recorded by a relay in front of the API.
 */
export const SESSION_ADAPTERS = [...ADAPTERS, 'standalone'] as const;
type Adapter = (typeof SESSION_ADAPTERS)[number];

/** A guarded route at GET /api/private in the host app; `reached` sees the headers its handler got. */
interface GuardedRoute {
  options: RequireUserOptions;
  reached: (headers: Record<string, string | undefined>) => void;
}

export interface StartProxyOptions extends SessionProxyOptions {
  baseUrl: string;
  adapter?: Adapter;
  guarded?: GuardedRoute;
  /** Express only: more of the host app. */
  mount?: (app: express.Express) => void;
  /** Web only: where the handler finds the end user's address (default: the socket's). */
  clientIp?: ClientIpReader;
}

const USER_HEADERS = ['x-svc-user-id', 'x-svc-user-email', 'x-svc-user-role'];

/**
 * The proxy mounted in a host app (see ADAPTERS) on a loopback port, calling the API through the
 * requester the Node proxy uses by default (undici's request), wrapped to record each upstream
 * call (to count branding and refresh calls).
 */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy> {
  if (options.adapter === 'standalone') return startStandalone(options);
  const upstream: string[] = [];
  const send = undiciRequester();
  const recording: HttpRequester = (url, request) => {
    upstream.push(`${request.method} ${new URL(url).pathname}`);
    return send(url, request);
  };
  const svc = createSvcClient({ apiKey: options.apiKey, baseUrl: options.baseUrl, request: recording });
  const server = options.adapter === 'web' ? webHost(options, svc) : expressHost(options, svc);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upstream,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The standalone server's listener with its default client, calling the API through a relay that records each call. */
async function startStandalone(options: StartProxyOptions): Promise<RunningProxy> {
  if (options.guarded || options.mount || options.clientIp || options.svc) throw new TypeError("the standalone server has no guard, host app or client of the caller's own");
  const upstream: string[] = [];
  const relay = await listen(createServer((req, res) => forward(options.baseUrl, req, res, upstream)));
  const config = { port: 0, host: '127.0.0.1', staticDir: null, trustProxy: false, proxy: { ...options, baseUrl: relay.url } };
  const server = await listen(createServer(createProxyServerListener(config)));
  return { url: server.url, upstream, close: async () => void (await Promise.all([server.close(), relay.close()])) };
}

/** Listens on a free loopback port; `close` ends every connection, then the server. */
export async function listen(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a request on to `target` as it came, and its answer back as it came; records `METHOD /path`. */
function forward(target: string, req: IncomingMessage, res: ServerResponse, upstream: string[]): void {
  const url = new URL(req.url ?? '/', target);
  upstream.push(`${req.method} ${url.pathname}`);
  const out = httpRequest(url, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
    answer.pipe(res);
  });
  out.on('error', () => res.destroy());
  req.pipe(out);
}

function expressHost(options: StartProxyOptions, svc: SvcClient): Server {
  const app = express();
  if (options.adapter === 'express after express.json()') app.use(express.json());
  app.use(createSessionProxy({ ...options, svc }));
  const { guarded } = options;
  if (guarded) {
    app.get('/api/private', requireUser({ ...guarded.options, svc: guarded.options.svc ?? svc }), (req, res) => {
      guarded.reached(Object.fromEntries(USER_HEADERS.map((name) => [name, req.get(name)])));
      res.json({ data: { id: req.get('x-svc-user-id') } });
    });
  }
  options.mount?.(app);
  return createServer(app);
}

/** The web-standard handler and guard; the host routes the base path to the handler and everything else to its own 404 page. */
function webHost(options: StartProxyOptions, svc: SvcClient): Server {
  const handler = createSessionHandler({ ...options, svc });
  const base = normalizeBasePath(options.routeBasePath);
  const { guarded } = options;
  const guard = guarded && createUserGuard({ ...guarded.options, svc: guarded.options.svc ?? svc });
  const privateRoute = guard?.protect((request) => {
    guarded!.reached(Object.fromEntries(USER_HEADERS.map((name) => [name, request.headers.get(name) ?? undefined])));
    return Response.json({ data: { id: request.headers.get('x-svc-user-id') } });
  });
  return createAdaptorServer({
    fetch: (request, env) => {
      const clientIp = options.clientIp ? undefined : env.incoming.socket.remoteAddress;
      const { pathname } = new URL(request.url);
      if (privateRoute && pathname === '/api/private' && request.method === 'GET') return privateRoute(request, { clientIp });
      if (pathname === base || pathname.startsWith(`${base}/`)) return handler(request, { clientIp });
      return new Response('<!doctype html><title>Not found</title>', { status: 404, headers: { 'Content-Type': 'text/html' } });
    },
  }) as Server;
}

/** One Set-Cookie line, split into its value and attributes (attribute names lower-cased). */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

export function setCookiesOf(res: Response): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...rest] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const attribute of rest) {
      const eq = attribute.indexOf('=');
      if (eq === -1) attributes[attribute.toLowerCase()] = true;
      else attributes[attribute.slice(0, eq).toLowerCase()] = attribute.slice(eq + 1);
    }
    cookies[pair.slice(0, at)] = { name: pair.slice(0, at), value: decodeURIComponent(pair.slice(at + 1)), attributes };
  }
  return cookies;
}

/** A minimal browser cookie jar for one site: keeps what Set-Cookie says, drops Max-Age=0. */
export class CookieJar {
  readonly values = new Map<string, string>();

  store(res: Response): this {
    for (const cookie of Object.values(setCookiesOf(res))) {
      if (cookie.attributes['max-age'] === '0') this.values.delete(cookie.name);
      else this.values.set(cookie.name, cookie.value);
    }
    return this;
  }

  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }
}

/** A same-origin JSON POST as the browser client sends it (with Origin). */
export function postJson(proxy: { url: string }, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: proxy.url, ...headers },
    body: JSON.stringify(body),
  });
}

export const PASSWORD = 'correct horse battery';

/** The parsed JSON body of a response, untyped (tests assert its shape). */
export async function json(res: Response): Promise<any> {
  return res.json();
}
