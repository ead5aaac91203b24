import type { SignInClient } from './known-device';
import { sameRefreshSecret } from './refresh-token';
import type { Project, TokenLifetimes } from './project';
import { isStorableText } from './text';

export interface Session {
  id: string;
  userId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

/** What the session store knows about one refresh token (found by its hash). */
export interface RefreshTokenRecord {
  tokenHash: string;
  sessionId: string;
  userId: string;
  /** Per-session secret from which successors are derived (see refresh-tokens use case). */
  rotationKey: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  successorHash: string | null;
  sessionRevokedAt: Date | null;
  /** When the session (the sign-in) began; its absolute lifetime counts from here. */
  sessionCreatedAt: Date;
}

/**
 * The moment a session ends for good, however often it was refreshed: its sign-in plus the
 * project's absolute session lifetime. A refresh at or after it is refused.
 */
export function sessionEndsAt(sessionCreatedAt: Date, lifetimes: Pick<TokenLifetimes, 'absoluteSessionLifetimeSeconds'>): Date {
  return new Date(sessionCreatedAt.getTime() + lifetimes.absoluteSessionLifetimeSeconds * 1000);
}

/** Expiry of a refresh token issued at `now`: its own lifetime, but never past its session's end. */
export function refreshTokenExpiry(now: Date, sessionCreatedAt: Date, lifetimes: Pick<TokenLifetimes, 'refreshTokenTtlSeconds' | 'absoluteSessionLifetimeSeconds'>): Date {
  const own = now.getTime() + lifetimes.refreshTokenTtlSeconds * 1000;
  return new Date(Math.min(own, sessionEndsAt(sessionCreatedAt, lifetimes).getTime()));
}

/** One use of a refresh token: what the rotation primitive is asked to do. */
export interface Rotation {
  /** The presented token's key (refreshTokenKey). */
  presentedHash: string;
  /**
   * Its successor's key. The successor's secret is derived from the presented token, so every
   * racer names the same secret, each with its own issue time (sameRefreshSecret).
   */
  successorHash: string;
  now: Date;
  /** When the successor expires. */
  expiresAt: Date;
  /** The project's `refreshReuseGraceSeconds`; 0 = strict, every reuse is a replay. */
  reuseGraceSeconds: number;
}

/** Outcome of the atomic rotation primitive. */
export type RotationResult =
  /** This call used the token up and stored its successor. */
  | { status: 'rotated' }
  /**
   * The token was already rotated into this very successor within the grace window, and the
   * successor is still unused and the session alive: hand the same successor out again. Its key
   * as stored carries the issue time the winner gave it (refreshTokenUnder).
   */
  | { status: 'reissued'; successorHash: string }
  /** The token exists but was already used (outside the window) or its session is revoked: a replay. */
  | { status: 'reused' }
  | { status: 'unknown' };

/** A token the rotation could not claim, as the rotation read it after its own failed claim. */
export interface UnclaimedToken {
  usedAt: Date | null;
  successorHash: string | null;
  sessionRevokedAt: Date | null;
  /** The token it was rotated into, if that one still exists. */
  successor: { usedAt: Date | null; expiresAt: Date } | null;
}

/**
 * The reuse grace window (docs/security.md, "Refresh-token reuse"), decided on the state the
 * rotation itself found after its claim failed, never on a read from before it: so every racer
 * that lost to a concurrent rotation of the same token, on any instance, sees that rotation and
 * gets the same successor. Outside the window, with a different successor, a successor already
 * used or expired, or a revoked session, the reuse is a replay. A missing token, or an unused one
 * (it could only have been refused for its expiry), is unknown.
 */
export function unclaimedRotationResult(token: UnclaimedToken | null, rotation: Pick<Rotation, 'successorHash' | 'now' | 'reuseGraceSeconds'>): RotationResult {
  if (!token) return { status: 'unknown' };
  if (token.sessionRevokedAt) return { status: 'reused' };
  if (!token.usedAt) return { status: 'unknown' };
  const { successor } = token;
  const inWindow = rotation.reuseGraceSeconds > 0 && rotation.now.getTime() - token.usedAt.getTime() <= rotation.reuseGraceSeconds * 1000;
  const { successorHash } = token;
  const sameSuccessor = successorHash !== null && sameRefreshSecret(successorHash, rotation.successorHash) && successor !== null;
  if (inWindow && sameSuccessor && successor.usedAt === null && successor.expiresAt > rotation.now) return { status: 'reissued', successorHash };
  return { status: 'reused' };
}

/** Where a session was started from, as the edge saw it (both shown in the user's device list). */
export interface SessionClient {
  /** The end user's address as rate limits count it (IPv4, or the /64 of IPv6). */
  address: string | null;
  /** The browser's or app's User-Agent, cut to MAX_USER_AGENT characters. */
  userAgent: string | null;
}

/** User agents are kept to this many characters. */
export const MAX_USER_AGENT = 512;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a stored user agent drops.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/g;

/** A user agent as stored: control characters dropped, cut to MAX_USER_AGENT; null when empty. */
export function storableUserAgent(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(CONTROL_CHARACTERS, '').trim().slice(0, MAX_USER_AGENT);
  return text === '' || !isStorableText(text) ? null : text;
}

/** What a session records of the client that signed in. */
export function sessionClientOf(client: SignInClient | undefined): SessionClient {
  return { address: client?.address ?? null, userAgent: storableUserAgent(client?.userAgent) };
}

/** One live session of a user, as the device list shows it. */
export interface SessionSummary extends SessionClient {
  id: string;
  userId: string;
  createdAt: Date;
  /** When the user last proved a factor in this session: its sign-in, or a later reauthentication. */
  authenticatedAt: Date;
  /** When the session was last refreshed (its newest refresh token), else its sign-in. */
  lastUsedAt: Date;
}

/**
 * The recent sign-in rule (docs/security.md, "Recent sign-in"): a session may make a sensitive
 * change (add or remove a passkey, turn TOTP on, change the password or the e-mail, delete the
 * account) only within the project's `recentSignInSeconds` of its user last proving a factor.
 * Past that, the request itself must carry the current password or a TOTP code. A stolen access
 * token of an older session therefore cannot add a passkey that would outlive a password reset.
 */
export function isRecentSignIn(authenticatedAt: Date, now: Date, project: Pick<Project, 'recentSignInSeconds'>): boolean {
  const age = now.getTime() - authenticatedAt.getTime();
  return age >= 0 && age < project.recentSignInSeconds * 1000;
}
