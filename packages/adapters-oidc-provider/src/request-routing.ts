import { IncomingMessage, type ServerResponse } from 'node:http';
import { isUuid, type Environment, type OidcClientStore } from '@svc/core';
import { OIDC_ROUTES } from './provider-configuration';

/** The request as Express hands it on: its mount path stripped from `url`, kept in `originalUrl`. */
export type HostRequest = IncomingMessage & { originalUrl?: string; body?: unknown };

/** oidc-provider reads at most this much of a body; we read no more. */
const MAX_FORM_BYTES = 56 * 1024;

/**
 * The environment whose key signs this request's output, and the request to hand on. Only the
 * token endpoint signs anything (ID tokens; the authorization endpoint answers with a code only),
 * and it signs for the client it authenticates; every other request may go to either provider, as
 * they share everything else. The client id is where oidc-provider reads it: the Basic
 * credentials, else the form body, which is then replayed to oidc-provider (see replayed).
 */
export async function routeBySigner(req: HostRequest, projectId: string, clients: OidcClientStore): Promise<{ environment: Environment; req: HostRequest }> {
  if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== OIDC_ROUTES.token) return { environment: 'production', req };
  let forward = req;
  let clientId = basicClientId(req);
  if (clientId === null && isForm(req)) {
    const body = await readBody(req);
    forward = replayed(req, body);
    clientId = new URLSearchParams(body.toString('utf8')).get('client_id');
  }
  const client = isUuid(clientId) ? await clients.find(projectId, clientId) : null;
  return { environment: client?.environment ?? 'production', req: forward };
}

function basicClientId(req: HostRequest): string | null {
  const [scheme, value] = (req.headers.authorization ?? '').split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value) return null;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  try {
    return colon > 0 ? decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')) : null;
  } catch {
    return null;
  }
}

function isForm(req: HostRequest): boolean {
  return /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
}

async function readBody(req: HostRequest): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * A fresh request carrying the same head and the already-read body, so oidc-provider reads its
 * body from a stream as usual (it would otherwise fall back to a pre-parsed `req.body` and warn).
 */
function replayed(req: HostRequest, body: Buffer): HostRequest {
  const copy = new IncomingMessage(req.socket) as HostRequest;
  Object.assign(copy, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    httpVersion: req.httpVersion,
    httpVersionMajor: req.httpVersionMajor,
    httpVersionMinor: req.httpVersionMinor,
  });
  // complete: the whole message is here; otherwise ending the copy counts as an abort and
  // IncomingMessage would destroy the shared socket.
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

export class BodyTooLarge extends Error {}

/**
 * Makes oidc-provider build every URL from the issuer (SVC_BASE_URL), whatever Host, scheme or
 * path prefix the request arrived with: Koa (proxy mode) reads host and scheme from
 * X-Forwarded-*, which are overwritten here, and the mount path from `originalUrl`.
 */
export function pinToIssuer(req: HostRequest, issuer: string): void {
  const url = new URL(issuer);
  req.headers['x-forwarded-host'] = url.host;
  req.headers['x-forwarded-proto'] = url.protocol.slice(0, -1);
  req.originalUrl = url.pathname + (req.url ?? '/');
}

/** An OAuth-style error (contract: `{ error, error_description }`, no envelope). */
export function writeOAuthError(res: ServerResponse, status: number, error: string, description: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify({ error, error_description: description }));
}
