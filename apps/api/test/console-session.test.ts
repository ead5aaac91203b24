import { InMemoryConsoleSignOutStore } from '@svc/core/testing';
import { CONSOLE_SESSION_SECONDS, ConsoleSessions } from '../src/http/console-session';

// The console's session cookie: what it proves, until when, and that a sign-out ends it.

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('console sessions', () => {
  const sessions = new ConsoleSessions('admin-token-0123456789abcdefghij', new InMemoryConsoleSignOutStore());

  it('reads back a cookie it issued, with the same CSRF token, until it expires', async () => {
    const { cookie, session } = sessions.issue(T0);
    expect(session.expiresAt).toEqual(at(CONSOLE_SESSION_SECONDS * 1000));
    expect(await sessions.read(cookie, at(CONSOLE_SESSION_SECONDS * 1000 - 1))).toEqual(session);
    expect(await sessions.read(cookie, at(CONSOLE_SESSION_SECONDS * 1000))).toBeNull();
  });

  it('gives every session its own CSRF token and id', () => {
    const [a, b] = [sessions.issue(T0).session, sessions.issue(T0).session];
    expect(a.csrfToken).not.toBe(b.csrfToken);
    expect(a.id).not.toBe(b.id);
  });

  it('refuses a cookie with a changed expiry or nonce, a cookie of another admin token, and garbage', async () => {
    const { cookie } = sessions.issue(T0);
    const [version, expiry, nonce, mac] = cookie.split('.');
    expect(await sessions.read([version, String(Number(expiry) + 3_600_000), nonce, mac].join('.'), T0)).toBeNull();
    expect(await sessions.read([version, expiry, `${nonce}x`, mac].join('.'), T0)).toBeNull();
    expect(await new ConsoleSessions('another-admin-token-0123456789abcd').read(cookie, T0)).toBeNull();
    for (const value of [undefined, '', 'v1', 'v2.1.2.3', `v1.${expiry}.${nonce}`, `v1.x.${nonce}.${mac}`]) expect(await sessions.read(value, T0)).toBeNull();
  });

  it('refuses a signed-out session, a copy of its cookie included; other sessions live on', async () => {
    const ended = sessions.issue(T0);
    const other = sessions.issue(T0);
    await sessions.end(ended.session);
    expect(await sessions.read(ended.cookie, T0)).toBeNull();
    expect(await sessions.read(other.cookie, T0)).toEqual(other.session);
  });
});
