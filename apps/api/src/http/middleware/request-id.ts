import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Printable, header- and log-safe ids only; anything else is replaced, never echoed. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * Gives every request an id: a sane incoming `X-Request-Id` (set by a proxy or the caller, so
 * logs correlate across hops) or a fresh UUID. Echoed in the response and written to every log line.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const id = chooseRequestId(req.headers['x-request-id']);
    res.locals.requestId = id;
    res.set('X-Request-Id', id);
    next();
  };
}

/** The incoming id when it is sane, else a fresh UUID (also used by hot-path.ts). */
export function chooseRequestId(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
