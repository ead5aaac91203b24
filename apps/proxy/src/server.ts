import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import type { ProxyServerConfig } from './config';
import type { ProxyAnswer } from './core/exchange';
import { createProxyCore, type RouteMatch } from './core/proxy-core';
import { drainOnStop } from './drain';
import { MeAsker } from './node-me';
import { compileTrust, NodeProxyRequest, pathOf, stripSvcHeaders, writeAnswer } from './node-request';
import { proxyDispatcher, proxySvcClient } from './svc-client';

// The demo and anything else served from PROXY_STATIC_DIR load only their own files: no inline
// script, no third-party origin, no framing.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** What every answer of the standalone server carries, as `writeHead` takes a head (name, value, ...). */
export const SECURITY_HEADERS: readonly string[] = [
  'Content-Security-Policy',
  CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options',
  'nosniff',
  'Referrer-Policy',
  'same-origin',
  'Cross-Origin-Opener-Policy',
  'same-origin',
];

function setSecurityHeaders(res: ServerResponse): void {
  for (let i = 0; i < SECURITY_HEADERS.length; i += 2) res.setHeader(SECURITY_HEADERS[i], SECURITY_HEADERS[i + 1]);
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  setSecurityHeaders(res);
  next();
};

const notFound: RequestHandler = (_req, res) => writeAnswer(res, { status: 404, body: { error: 'not_found', message: 'Not found.' }, headers: {}, cookies: [] });

/** Everything of the standalone server but the proxy's routes: health check, static folder, 404. */
function expressApp(config: ProxyServerConfig): Express {
  const app = express();
  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  // Nothing it answers in JSON is worth hashing for an ETag.
  app.set('etag', false);
  app.use(securityHeaders);
  app.get('/healthz', (_req, res) => void res.json({ data: { status: 'ok' } }));
  if (config.staticDir) app.use(express.static(config.staticDir, { index: 'index.html', fallthrough: true }));
  app.use(notFound);
  return app;
}

/**
 * What the standalone server runs. Requests under the proxy's base path go straight from Node's
 * request to the proxy's core, without Express's app and routers on the way (a page view is one
 * such request); the health check, the static folder (optional, on the same origin) and the 404
 * page are an Express app.
 *
 * A signed-in page view's `GET session` takes the core's shortcut when it offers one: /me asked
 * straight through the client's connection pool (`MeAsker`), and the user written out, without
 * the SDK's and the route's layers on the way; anything but the user goes to the route. Not with
 * a client of the caller's own (`proxy.svc`), which every call must then go through.
 */
export function createProxyServerListener(config: ProxyServerConfig, onError: (error: unknown) => void = () => {}): RequestListener {
  const core = createProxyCore({ ...config.proxy, onError }, proxySvcClient);
  const me = config.proxy.svc ? null : new MeAsker(proxyDispatcher(), core.options.baseUrl, core.options.apiKey);
  const trust = compileTrust(config.trustProxy);
  const app = expressApp(config);
  const fail = (res: ServerResponse, error: unknown) => {
    onError(error);
    res.destroy();
  };
  // Nothing has set a header on `res`: the security headers go out with the answer's, in one head.
  const write = (res: ServerResponse, answer: ProxyAnswer) => writeAnswer(res, answer, SECURITY_HEADERS);
  const route = (request: NodeProxyRequest, match: RouteMatch | null, res: ServerResponse) =>
    core.answer(request, match).then(
      (answer) => write(res, answer),
      (error: unknown) => fail(res, error),
    );
  return (req, res) => {
    const path = pathOf(req.url ?? '/');
    const subPath = core.subPath(path);
    // The health check wins, as it did when everything was one Express app (routeBasePath `/`).
    if (subPath === null || path === '/healthz') return void app(req, res);
    stripSvcHeaders(req);
    const request = new NodeProxyRequest(req, path, trust);
    const match = core.match(req.method ?? 'GET', subPath);
    const shortcut = me ? core.sessionShortcut(request, match) : null;
    if (!me || !shortcut) return void route(request, match, res);
    me.ask(
      shortcut.call,
      (user) => {
        // Called from undici's handler, which must not see it throw.
        try {
          write(res, shortcut.answer(user));
        } catch (error) {
          fail(res, error);
        }
      },
      () => void route(request, match, res),
    );
  };
}

/** The address could not be bound; the message says which and what to do. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListenError';
  }
}

export interface RunningProxyServer {
  server: Server;
  url: string;
  /** Drains and closes (see drainOnStop): true when every connection ended within `timeoutMs`. */
  stop(timeoutMs: number): Promise<boolean>;
}

/** Listens on `config.host` (all interfaces when null) and `config.port` (0 = any free port). */
export async function startProxyServer(config: ProxyServerConfig, onError?: (error: unknown) => void): Promise<RunningProxyServer> {
  const server = createServer(createProxyServerListener(config, onError));
  const { stop } = drainOnStop(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
    server.listen(config.port, config.host ?? undefined, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host ?? 'localhost';
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, stop };
}

function listenError(error: NodeJS.ErrnoException, config: ProxyServerConfig): Error {
  const where = `port ${config.port}${config.host ? ` on ${config.host}` : ''}`;
  if (error.code === 'EADDRINUSE') return new ListenError(`${where} is already in use: stop what listens there, or set PROXY_PORT to a free port.`);
  if (error.code === 'EACCES') return new ListenError(`${where} needs privileges this process lacks: set PROXY_PORT to a port above 1023.`);
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') {
    return new ListenError(`PROXY_HOST ${config.host} is not an address of this machine (${error.code}).`);
  }
  return error;
}
