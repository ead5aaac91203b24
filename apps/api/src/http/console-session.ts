import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ConsoleSignOutStore } from '@svc/core';
import type { Request, Response } from 'express';

/**
 * The console's sign-in (docs/console.md): the admin token, typed once, is exchanged for a
 * session cookie, so the token never sits in the browser's storage. The cookie is HttpOnly (no
 * script reads it), SameSite=Strict (no other site's page sends it) and expires; every request
 * made with it must also carry the session's CSRF token in `X-Svc-Csrf`, which only a page of
 * this origin can read (from the sign-in answer or GET /console/api/session).
 *
 * The cookie carries the session: `v1.<expiry ms>.<nonce>.<mac>`, the MAC keyed by a key derived
 * from the admin token, so no row is written per sign-in. Changing the admin token ends every
 * console session at once. Signing out clears the browser's cookie and records the session (by
 * a hash of its nonce) in the ConsoleSignOutStore until its expiry, so a copied cookie dies at
 * sign-out too, on every instance sharing the database.
 */
const CONSOLE_COOKIE = 'svc_console';
export const CSRF_HEADER = 'x-svc-csrf';
export const CONSOLE_SESSION_SECONDS = 8 * 60 * 60;

export interface ConsoleSession {
  /** A hash of the cookie's nonce: what a sign-out records. */
  id: string;
  expiresAt: Date;
  csrfToken: string;
}

export class ConsoleSessions {
  private readonly key: Buffer;

  /** Without `signOuts` (a bare createApp) a sign-out only clears the browser's cookie. */
  constructor(
    adminToken: string,
    private readonly signOuts?: Pick<ConsoleSignOutStore, 'add' | 'has'>,
  ) {
    this.key = createHmac('sha256', adminToken).update('svc console session v1').digest();
  }

  /** A new session from now: the cookie value and what the page may know of it. */
  issue(now: Date): { cookie: string; session: ConsoleSession } {
    const expires = now.getTime() + CONSOLE_SESSION_SECONDS * 1000;
    const nonce = randomBytes(18).toString('base64url');
    const body = `v1.${expires}.${nonce}`;
    return { cookie: `${body}.${this.mac(body)}`, session: { id: sessionIdOf(nonce), expiresAt: new Date(expires), csrfToken: this.csrf(nonce) } };
  }

  /** The session of a cookie value: null when forged, malformed, expired at `now` or signed out. */
  async read(cookie: string | undefined, now: Date): Promise<ConsoleSession | null> {
    const parts = cookie?.split('.') ?? [];
    if (parts.length !== 4 || parts[0] !== 'v1' || !/^\d{1,15}$/.test(parts[1])) return null;
    const body = parts.slice(0, 3).join('.');
    if (!sameText(parts[3], this.mac(body))) return null;
    const expires = Number(parts[1]);
    if (expires <= now.getTime()) return null;
    const session = { id: sessionIdOf(parts[2]), expiresAt: new Date(expires), csrfToken: this.csrf(parts[2]) };
    return (await this.signOuts?.has(session.id)) ? null : session;
  }

  /** Ends `session` for good: its cookie, wherever a copy is, is refused from now on. */
  async end(session: ConsoleSession): Promise<void> {
    await this.signOuts?.add(session.id, session.expiresAt);
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }

  private csrf(nonce: string): string {
    return createHmac('sha256', this.key).update(`csrf.${nonce}`).digest('base64url');
  }
}

function sessionIdOf(nonce: string): string {
  return createHash('sha256').update(nonce).digest('base64url');
}

/** Constant-time comparison of two texts of any length (both are hashed first). */
export function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** The console cookie of a request, if it carries one. */
export function consoleCookieOf(req: Request): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CONSOLE_COOKIE) return value.join('=');
  }
  return undefined;
}

/** Sets (or, with null, clears) the console cookie. Secure whenever the request came over HTTPS. */
export function setConsoleCookie(req: Request, res: Response, value: string | null): void {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${value === null ? 0 : CONSOLE_SESSION_SECONDS}`];
  if (req.secure) attributes.push('Secure');
  res.append('Set-Cookie', `${CONSOLE_COOKIE}=${value ?? ''}; ${attributes.join('; ')}`);
}
