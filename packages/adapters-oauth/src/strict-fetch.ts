import { OAuthProviderError } from '@svc/core';

/** Profile answers are small; anything bigger is not what we asked for. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * GET a provider's JSON resource with a bearer token, strictly: no redirects followed, a timeout,
 * a 2xx JSON answer of bounded size, or OAuthProviderError. Used for GitHub's and Discord's
 * profile resources, which are plain REST, not OpenID userinfo.
 */
export async function fetchProviderJson(url: string, options: { accessToken: string; timeoutMs: number; headers?: Record<string, string> }): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: { Accept: 'application/json', 'User-Agent': 'svc-auth', ...options.headers, Authorization: `Bearer ${options.accessToken}` },
    });
  } catch (error) {
    throw new OAuthProviderError(`request to ${new URL(url).origin} failed`, { cause: error });
  }
  if (response.status < 200 || response.status > 299) throw new OAuthProviderError(`${new URL(url).pathname} answered ${response.status}`);
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) throw new OAuthProviderError(`${new URL(url).pathname} did not answer JSON`);
  const text = await response.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw new OAuthProviderError(`${new URL(url).pathname} answered too much`);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new OAuthProviderError(`${new URL(url).pathname} answered malformed JSON`, { cause: error });
  }
}
