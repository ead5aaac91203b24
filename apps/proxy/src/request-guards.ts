import type { Request, RequestHandler, Response } from 'express';
import { sendError } from './errors';

/**
 * Deletes every incoming `x-svc-*` header. `requireUser` sets `x-svc-user-*` for the handlers
 * behind it; a client must never be able to send them itself (nor `x-svc-client-ip`).
 */
export function stripSvcHeaders(req: Request): void {
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith('x-svc-')) delete req.headers[name];
  }
}

/** Middleware form of {@link stripSvcHeaders}. */
export const stripSvcHeadersMiddleware: RequestHandler = (req, _res, next) => {
  stripSvcHeaders(req);
  next();
};

/**
 * POSTs must come from our own origin. Browsers send `Origin` on every cross-origin POST (and on
 * same-origin ones too, in current engines); a request without one is a server-to-server call or
 * a very old browser, which SameSite=Lax and the JSON requirement already cover. `Sec-Fetch-Site:
 * cross-site` is refused as well, as a second opinion from the browser itself.
 */
export function sameOriginPosts(publicOrigin: string | null): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    const origin = req.get('origin');
    const crossSite = req.get('sec-fetch-site') === 'cross-site';
    if (!crossSite && (origin === undefined || origin === ownOrigin(req, publicOrigin))) return next();
    sendError(res, 403, 'origin_not_allowed', 'Requests to the session proxy must come from this site.');
  };
}

function ownOrigin(req: Request, publicOrigin: string | null): string {
  return publicOrigin ?? `${req.protocol}://${req.host}`;
}

/**
 * POST bodies must be declared JSON (DESIGN §10). A cross-site HTML form can only send
 * urlencoded, multipart or text/plain, so together with SameSite=Lax this closes form-based CSRF.
 */
export const requireJsonPosts: RequestHandler = (req: Request, res: Response, next) => {
  if (req.method !== 'POST' || req.is('application/json')) return next();
  sendError(res, 415, 'unsupported_media_type', 'Send the request body as JSON (Content-Type: application/json).');
};

/** The end user's address as Express sees it (honouring the app's `trust proxy`), for X-Svc-Client-Ip. */
export function clientIpOf(req: Request): string | undefined {
  return req.ip ?? req.socket.remoteAddress ?? undefined;
}
