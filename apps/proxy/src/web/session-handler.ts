import { createSvcClient } from '@svc/sdk';
import type { SessionProxyOptions } from '../core/options';
import { createProxyCore } from '../core/proxy-core';
import { addressOf, toResponse, WebProxyRequest, type ClientIpReader, type WebCallContext } from './web-request';

/** Options of the web-standard session handler: the proxy's, plus where to find the end user's address. */
export interface SessionHandlerOptions extends SessionProxyOptions {
  /**
   * The end user's address for a request that does not come with one in its context, e.g.
   * `(request) => request.headers.get('x-real-ip') ?? undefined` behind a proxy you trust to set
   * that header. Unset: the API sees this server's address (rate limits then count every user
   * together).
   */
  clientIp?: ClientIpReader;
}

/** A web-standard handler: takes a `Request`, answers a `Response`. The context is optional. */
export type SessionHandler = (request: Request, context?: WebCallContext) => Promise<Response>;

/**
 * The session proxy as a web-standard handler, for Next.js route handlers, Hono, Bun, Deno and
 * other runtimes with fetch's `Request`/`Response`. The same rules as the Express router (they
 * live in `core/`): routes under `routeBasePath`, cookies, single-flight refresh, branding cache.
 * Requests outside the base path are 404 too: route only the base path to it. Uses only Web
 * APIs (fetch, Web Crypto, streams), so it runs on edge runtimes.
 */
export function createSessionHandler(options: SessionHandlerOptions): SessionHandler {
  const core = createProxyCore(options, (apiKey, baseUrl) => createSvcClient({ apiKey, baseUrl }));
  return async (request, context) => {
    const url = new URL(request.url);
    const subPath = core.subPath(url.pathname);
    const match = subPath === null ? null : core.match(request.method, subPath);
    const answer = await core.answer(new WebProxyRequest(request, url, addressOf(request, context, options.clientIp)), match);
    return toResponse(request.method, answer);
  };
}
