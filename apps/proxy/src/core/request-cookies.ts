import type { CookieNames } from './options';

// Reading the proxy's cookies from a request; writing them is cookies.ts.

/** Cookies of a request header, parsed without a dependency. Malformed percent-escapes are kept raw. */
export function parseCookies(header: string | undefined): Record<string, string> {
  // No prototype: a cookie named `__proto__` is just a name.
  const cookies: Record<string, string> = Object.create(null);
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    const name = part.slice(0, Math.max(at, 0)).trim();
    // The first occurrence wins, as in browsers' own ordering (most specific path first).
    if (!name || name in cookies) continue;
    cookies[name] = decodeValue(part.slice(at + 1));
  }
  return cookies;
}

function decodeValue(raw: string): string {
  const value = raw.trim().replace(/^"(.*)"$/, '$1');
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The proxy's cookies in one request. */
export interface RequestCookies {
  access?: string;
  refresh?: string;
  device?: string;
  /**
   * The access or the refresh cookie came more than once. Only another site can cause that (a
   * sibling subdomain setting a cookie for the parent domain or a longer path), so it counts as
   * no session at all: using either copy could sign the browser into someone else's account.
   */
  duplicated: boolean;
}

/** Device ids the proxy issues: 16 random bytes in base64url. Anything else is ignored. */
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;

/** Reads the proxy's three cookies, counting copies. Empty values count as absent. */
export function readRequestCookies(header: string | undefined, names: CookieNames): RequestCookies {
  const found: RequestCookies = { duplicated: false };
  if (!header) return found;
  let access = 0;
  let refresh = 0;
  let device = 0;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const name = part.slice(0, at).trim();
    if (name === names.access) {
      access++;
      found.access = decodeValue(part.slice(at + 1)) || undefined;
    } else if (name === names.refresh) {
      refresh++;
      found.refresh = decodeValue(part.slice(at + 1)) || undefined;
    } else if (name === names.device) {
      device++;
      found.device = decodeValue(part.slice(at + 1));
    }
  }
  if (access > 1 || refresh > 1) return { duplicated: true, device: device === 1 && DEVICE_ID.test(found.device ?? '') ? found.device : undefined };
  if (device !== 1 || !DEVICE_ID.test(found.device ?? '')) found.device = undefined;
  return found;
}
