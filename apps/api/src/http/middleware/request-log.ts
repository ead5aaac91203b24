import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';

/** What one request's log line holds: never a secret, never a raw URL. */
export interface RequestLine {
  requestId: unknown;
  method: string;
  route: string;
  status: number;
  ms: number;
}

/**
 * Writes request lines (the line holds only the fields above: the id is sanitised by requestId,
 * the route is a pattern). Like every line, it passes the logger's censor of secret fields.
 */
export function requestLineWriter(logger: Logger): (line: RequestLine) => void {
  return (line) => {
    if (line.status >= 500) logger.error(line, 'request');
    else logger.info(line, 'request');
  };
}

/**
 * One log line per request: method, route, status, duration, request id. The matched route
 * pattern is logged rather than the raw URL, so query strings (which may hold e-mails or tokens)
 * and ids in paths never reach the log.
 */
export function requestLog(logger: Logger): RequestHandler {
  const write = requestLineWriter(logger);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      write({ requestId: res.locals.requestId, method: req.method, route: routeOf(req), status: res.statusCode, ms: elapsedMs(started) });
    });
    next();
  };
}

/** Milliseconds since `started` (process.hrtime.bigint()), to a tenth. */
export function elapsedMs(started: bigint): number {
  return Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
}

/** The matched route pattern (`/api/auth/login`, `/admin/projects/:id`), or `(unmatched)`. */
export function routeOf(req: Request): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  return typeof pattern === 'string' ? `${req.baseUrl}${pattern}` : '(unmatched)';
}
