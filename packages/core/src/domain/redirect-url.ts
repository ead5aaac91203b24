// Redirect URLs the service sends browsers to (DESIGN §4a): parsed with WHATWG URL and matched
// exactly against an allow-list, so suffix tricks, userinfo and scheme games never pass.

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The parsed URL when `value` is one the service may send a browser to: https (http only for
 * localhost and loopback addresses), no credentials, no fragment, and no backslash anywhere (WHATWG
 * reads `\` as `/` in http URLs, other parsers do not, which is how open redirects are born).
 */
export function parseAppUrl(value: unknown): URL | null {
  if (typeof value !== 'string' || value.includes('\\')) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.username || url.password || url.hash) return null;
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  return secure ? url : null;
}

/**
 * The entry of `allowList` that `candidate` names, compared after parsing both (so
 * `https://APP.example.test/cb` matches `https://app.example.test/cb`, and nothing else does), or
 * null. Entries that are not safe app URLs themselves never match.
 */
export function matchRedirectUrl(allowList: readonly string[], candidate: string): string | null {
  const wanted = parseAppUrl(candidate);
  if (!wanted) return null;
  for (const entry of allowList) {
    const allowed = parseAppUrl(entry);
    if (allowed && allowed.href === wanted.href) return allowed.href;
  }
  return null;
}

/** `base` with `params` set in its query (its own query is kept); undefined values are left out. */
export function withQuery(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}
