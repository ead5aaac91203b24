import { sha256Hex } from './secrets';

// A refresh token is `<issued>.<secret>`: the moment it was issued (milliseconds since the epoch,
// 12 lowercase hex digits) and a bearer secret. It is stored under `z<issued><SHA-256 of the
// secret>`, never as itself. The key puts tokens in the order they were issued, after every key of
// the earlier form, so a store's index of tokens grows at one end, and the tokens presented (most
// issued within one access token's lifetime) sit together at that end. A refresh then writes the
// index page the refresh before it wrote, not a random page of a large index: at a million users
// that random page was a buffer miss and a full-page image in PostgreSQL's WAL on most refreshes
// (docs/decisions.md, "Refresh tokens carry their issue time").
//
// A bare secret, stored under its SHA-256, is the earlier form. It is still found, rotated and
// logged out, and it is what the service issues unless `AuthSettings.refreshTokenIssueTime` is on:
// a release before the current form finds only bare secrets, so an operator turns the setting on
// once no instance of such a release serves the database (docs/operating.md, "Upgrading and
// migrations").

/** A refresh token as issued: its issue time, then the secret. */
const REFRESH_TOKEN = /^([0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;
/** A stored key of the current form: `z`, the issue time, then the secret's SHA-256. */
const KEYED = /^z([0-9a-f]{12})([0-9a-f]{64})$/;

/** The refresh token issued at `issuedAt` for `secret` (a bearer secret). */
export function newRefreshToken(issuedAt: Date, secret: string): string {
  return `${issuedAt.getTime().toString(16).padStart(12, '0')}.${secret}`;
}

/**
 * The refresh token to hand out for `secret`, issued at `issuedAt`: of the current form when
 * `withIssueTime` (the service's `refreshTokenIssueTime` setting), else the bare secret.
 */
export function issuedRefreshToken(withIssueTime: boolean, issuedAt: Date, secret: string): string {
  return withIssueTime ? newRefreshToken(issuedAt, secret) : secret;
}

/** The key `token` is stored and found under. */
export function refreshTokenKey(token: string): string {
  const issued = REFRESH_TOKEN.exec(token);
  return issued ? `z${issued[1]}${sha256Hex(issued[2])}` : sha256Hex(token);
}

/** The SHA-256 of the secret a stored key names, whichever form the key has. */
function secretDigest(key: string): string {
  return KEYED.exec(key)?.[2] ?? key;
}

/**
 * True when two stored keys name the same secret. Racers rotating one token derive the same
 * successor secret, each with its own issue time; what they agree on is the secret.
 */
export function sameRefreshSecret(key: string, other: string): boolean {
  return secretDigest(key) === secretDigest(other);
}

/**
 * The token stored under `key` rebuilt from its `secret`: the one a racer that won the rotation
 * handed out, with its issue time, or a bare secret where an earlier release stored that.
 */
export function refreshTokenUnder(key: string, secret: string): string {
  const keyed = KEYED.exec(key);
  return keyed ? `${keyed[1]}.${secret}` : secret;
}
