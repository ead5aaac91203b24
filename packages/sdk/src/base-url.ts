/** The contract's final fallback when neither the option nor the environment names the API. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

/**
 * The API origin, per the contract's fallbacks: the option, then `SVC_API_URL`, then
 * `SVC_BASE_URL`, then {@link DEFAULT_BASE_URL}. Empty values count as unset; trailing slashes
 * are dropped so paths can be appended.
 */
export function resolveBaseUrl(option?: string, env: Record<string, string | undefined> = processEnv()): string {
  const chosen = [option, env.SVC_API_URL, env.SVC_BASE_URL].map((value) => value?.trim()).find((value) => value);
  const url = chosen ?? DEFAULT_BASE_URL;
  if (!/^https?:\/\//i.test(url)) throw new TypeError(`svc base URL must start with http:// or https:// (got "${url}").`);
  return url.replace(/\/+$/, '');
}

// The SDK may be bundled for runtimes without `process`; there the environment is simply empty.
function processEnv(): Record<string, string | undefined> {
  return typeof process === 'undefined' ? {} : process.env;
}
