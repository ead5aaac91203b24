import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express, type RequestHandler } from 'express';
import type { ProxyServerConfig } from './config';
import { createSessionProxy } from './create-session-proxy';
import { sendError } from './errors';

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
  app.use((_req, res) => sendError(res, 404, 'not_found', 'Not found.'));
  return app;
}

/** Listens on `config.port` (0 = any free port) and resolves with the server and its URL. */
export function startProxyServer(config: ProxyServerConfig, onError?: (error: unknown) => void): Promise<{ server: Server; url: string }> {
  const app = createProxyServerApp(config, onError);
  return new Promise((resolve, reject) => {
    const server = app.listen(config.port, () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://localhost:${port}` });
    });
    server.once('error', reject);
  });
}
