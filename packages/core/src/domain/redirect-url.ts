// URLs the service sends browsers to, and the origins it lets call it: parsed with WHATWG URL and
// compared exactly, so suffix tricks, userinfo and scheme games never pass (docs/security.md).
// One rule for every such URL: project settings, OAuth provider settings, OIDC client redirect
// URIs and the redirect URL a sign-in asks for (docs/decisions.md, "One home per rule").

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Longest app URL accepted: room for any real callback, a bound on what is stored and compared. */
export const MAX_APP_URL_LENGTH = 2048;

function parseUrl(value: unknown): URL | null {
  if (typeof value !== 'string' || value.includes('\\')) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/**
 * The parsed URL when `value` is one the service may send a browser to: https (http only for
 * localhost and loopback addresses), no credentials, no fragment (not even an empty `#`: RFC 6749
 * §3.1.2 forbids one in a redirect URI), at most {@link MAX_APP_URL_LENGTH} characters, and no
 * backslash anywhere (WHATWG reads `\` as `/` in http URLs, other parsers do not, which is how
 * open redirects are born).
 */
export function parseAppUrl(value: unknown): URL | null {
  if (typeof value !== 'string' || value.length > MAX_APP_URL_LENGTH || value.includes('#')) return null;
  const url = parseUrl(value);
  if (!url || url.username || url.password) return null;
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  return secure ? url : null;
}

/** True for a URL {@link parseAppUrl} accepts. */
export function isAppUrl(value: unknown): value is string {
  return parseAppUrl(value) !== null;
}

/** The one message for a `field` (or, with `each`, an entry of a list) that is not an app URL. */
export function appUrlMessage(field: string, options: { each?: boolean } = {}): string {
  return `${options.each ? 'each entry of ' : ''}${field} must be an https URL (http only for localhost) without credentials or fragment.`;
}

/** A serialised origin (`https://app.example.com[:port]`), the exact form browsers send in `Origin`. */
export function isOrigin(value: unknown): value is string {
  const url = parseUrl(value);
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
}

/** The one message for a `field` (or an entry of a list) that is not an origin. */
export function originMessage(field: string, options: { each?: boolean } = {}): string {
  return `${options.each ? 'each entry of ' : ''}${field} must be an origin such as https://app.example.com (scheme, host, optional port; no path).`;
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
