import type { ServerResponse } from 'node:http';
import type { RequestHandler, Response } from 'express';
import helmet from 'helmet';

/**
 * helmet's default headers (CSP, HSTS, nosniff, frame and referrer policies...), read off one run
 * of helmet() when this module loads. helmet runs a chain of twelve middlewares per request to set
 * the same constant values; asking it once keeps its policy and its upgrades, and a request then
 * pays only for the setHeader calls (bench/README.md). X-Powered-By is turned off in app.ts.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = helmetHeaders();

/** Sets {@link SECURITY_HEADERS} on every answer. */
export function securityHeaders(): RequestHandler {
  return (_req, res, next) => {
    setSecurityHeaders(res);
    next();
  };
}

/** For answers written without Express (hot-path.ts). */
export function setSecurityHeaders(res: Pick<ServerResponse, 'setHeader'>): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

function helmetHeaders(): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  let finished = false;
  const recorder = {
    setHeader: (name: string, value: unknown) => void headers.push([name, String(value)]),
    removeHeader: () => undefined,
  } as unknown as Response;
  helmet()({ headers: {}, method: 'GET', url: '/' } as never, recorder, () => {
    finished = true;
  });
  // A helmet that answered asynchronously or per request could not be read once: fail at start.
  if (!finished || headers.length === 0) throw new Error('helmet did not set its headers synchronously; they cannot be computed once.');
  return headers;
}
