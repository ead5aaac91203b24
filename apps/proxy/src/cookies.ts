import type { Request, Response } from 'express';
import type { ResolvedProxyOptions } from './options';

/** The contract: the refresh cookie lives 60 days (the API's default refresh lifetime too). */
export const REFRESH_COOKIE_MAX_AGE_SECONDS = 60 * 24 * 60 * 60;

/** Cookies of a request header, parsed without a dependency. Malformed percent-escapes are kept raw. */
export function parseCookies(header: string | undefined): Record<string, string> {
  // No prototype: a cookie named `__proto__` is just a name.
  const cookies: Record<string, string> = Object.create(null);
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    const name = part.slice(0, Math.max(at, 0)).trim();
    // The first occurrence wins, as in browsers' own ordering (most specific path first).
    if (!name || name in cookies) continue;
    const raw = part.slice(at + 1).trim().replace(/^"(.*)"$/, '$1');
    try {
      cookies[name] = decodeURIComponent(raw);
    } catch {
      cookies[name] = raw;
    }
  }
  return cookies;
}

/**
 * Reads and writes the session cookies. Every attribute is written out explicitly (no framework
 * defaults): HttpOnly so page scripts never see a token, Path=/ and SameSite=Lax per the
 * contract, Secure in production.
 */
export class SessionCookies {
  constructor(private readonly options: Pick<ResolvedProxyOptions, 'cookieNames' | 'secureCookies'>) {}

  access(req: Request): string | undefined {
    return parseCookies(req.headers.cookie)[this.options.cookieNames.access] || undefined;
  }

  refresh(req: Request): string | undefined {
    return parseCookies(req.headers.cookie)[this.options.cookieNames.refresh] || undefined;
  }

  /** Sets both cookies from a token bundle: access for `expiresIn` seconds, refresh for 60 days. */
  set(res: Response, tokens: { accessToken: string; refreshToken: string; expiresIn: number }): void {
    res.append('Set-Cookie', this.serialize(this.options.cookieNames.access, tokens.accessToken, tokens.expiresIn));
    res.append('Set-Cookie', this.serialize(this.options.cookieNames.refresh, tokens.refreshToken, REFRESH_COOKIE_MAX_AGE_SECONDS));
  }

  /** Expires both cookies (same attributes, so the browser matches and drops them). */
  clear(res: Response): void {
    res.append('Set-Cookie', this.serialize(this.options.cookieNames.access, '', 0));
    res.append('Set-Cookie', this.serialize(this.options.cookieNames.refresh, '', 0));
  }

  private serialize(name: string, value: string, maxAgeSeconds: number): string {
    const parts = [`${name}=${encodeURIComponent(value)}`, `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
    if (this.options.secureCookies) parts.push('Secure');
    return parts.join('; ');
  }
}
