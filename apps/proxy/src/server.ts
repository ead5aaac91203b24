import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import type { ProxyServerConfig } from './config';
import { createSessionProxy } from './create-session-proxy';
import { drainOnStop } from './drain';
import { writeAnswer } from './express-request';

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

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
  next();
};

const notFound: RequestHandler = (_req, res) => writeAnswer(res, { status: 404, body: { error: 'not_found', message: 'Not found.' }, headers: {}, cookies: [] });

/** The standalone app: health check, the session proxy, and optionally a static folder on the same origin. */
export function createProxyServerApp(config: ProxyServerConfig, onError: (error: unknown) => void = () => {}): Express {
  const app = express();
  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  // Session answers are per user and never cached: hashing each body for an ETag is wasted work.
  app.set('etag', false);
  app.use(securityHeaders);
  app.get('/healthz', (_req, res) => void res.json({ data: { status: 'ok' } }));
  app.use(createSessionProxy({ ...config.proxy, onError }));
  if (config.staticDir) app.use(express.static(config.staticDir, { index: 'index.html', fallthrough: true }));
  app.use(notFound);
  return app;
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
  const server = createServer(createProxyServerApp(config, onError));
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
