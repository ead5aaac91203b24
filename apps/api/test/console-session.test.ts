import { CONSOLE_SESSION_SECONDS, ConsoleSessions } from '../src/http/console-session';

// The console's stateless session: what a cookie proves, and until when.

const T0 = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('console sessions', () => {
  const sessions = new ConsoleSessions('admin-token-0123456789abcdefghij');

  it('reads back a cookie it issued, with the same CSRF token, until it expires', () => {
    const { cookie, session } = sessions.issue(T0);
    expect(session.expiresAt).toEqual(at(CONSOLE_SESSION_SECONDS * 1000));
    expect(sessions.read(cookie, at(CONSOLE_SESSION_SECONDS * 1000 - 1))).toEqual(session);
    expect(sessions.read(cookie, at(CONSOLE_SESSION_SECONDS * 1000))).toBeNull();
  });

  it('gives every session its own CSRF token', () => {
    expect(sessions.issue(T0).session.csrfToken).not.toBe(sessions.issue(T0).session.csrfToken);
  });

  it('refuses a cookie with a changed expiry or nonce, a cookie of another admin token, and garbage', () => {
    const { cookie } = sessions.issue(T0);
    const [version, expiry, nonce, mac] = cookie.split('.');
    expect(sessions.read([version, String(Number(expiry) + 3_600_000), nonce, mac].join('.'), T0)).toBeNull();
    expect(sessions.read([version, expiry, `${nonce}x`, mac].join('.'), T0)).toBeNull();
    expect(new ConsoleSessions('another-admin-token-0123456789abcd').read(cookie, T0)).toBeNull();
    for (const value of [undefined, '', 'v1', 'v2.1.2.3', `v1.${expiry}.${nonce}`, `v1.x.${nonce}.${mac}`]) expect(sessions.read(value, T0)).toBeNull();
  });
});
