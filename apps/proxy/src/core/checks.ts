import type { ProxyRequest } from './exchange';

/**
 * POSTs must come from our own origin. Browsers send `Origin` on every cross-origin POST (and on
 * same-origin ones too, in current engines); a request without one is a server-to-server call or
 * a very old browser, which SameSite=Lax and the JSON requirement already cover. `Sec-Fetch-Site:
 * cross-site` is refused as well, as a second opinion from the browser itself.
 */
export function isForeignPost(request: ProxyRequest, publicOrigin: string | null): boolean {
  if (request.header('sec-fetch-site') === 'cross-site') return true;
  const origin = request.header('origin');
  return origin !== undefined && origin !== (publicOrigin ?? request.origin());
}

/**
 * Headers a client must never send itself: the guard sets `x-svc-user-*` for the handlers behind
 * it, and `x-svc-client-ip` names the end user to the API. Every incoming `x-svc-*` is dropped.
 */
export function isSvcHeader(lowerCaseName: string): boolean {
  return lowerCaseName.startsWith('x-svc-');
}
