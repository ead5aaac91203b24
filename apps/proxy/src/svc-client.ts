import { createSvcClient, type HttpRequester, type SvcClient } from '@svc/sdk';
import { undiciRequester } from '@svc/sdk/node';
import { Agent } from 'undici';

/** One connection pool to the API per process, however many proxies and guards are mounted. */
let dispatcher: Agent | undefined;
let requester: HttpRequester | undefined;

/** The pool the Node proxy's calls to the API share (its client's, and the standalone server's own /me calls). */
export function proxyDispatcher(): Agent {
  return (dispatcher ??= new Agent());
}

/**
 * The Node proxy's client of the API: every page view costs one `/me` call through it, so it
 * sends through undici's dispatcher rather than fetch (`undiciRequester`: under a third of
 * fetch's CPU per call on Node 20; bench/README.md, rounds 3 and 5). Everything else is the SDK's
 * default (retries, 10 s per attempt). The web-standard handler uses the SDK's fetch default.
 */
export function proxySvcClient(apiKey: string, baseUrl: string | undefined): SvcClient {
  requester ??= undiciRequester({ dispatcher: proxyDispatcher() });
  return createSvcClient({ apiKey, baseUrl, request: requester });
}
