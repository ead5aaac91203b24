import type { TokenLifetimes } from './project';

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
export function refreshTokenExpiry(
  now: Date,
  sessionCreatedAt: Date,
  lifetimes: Pick<TokenLifetimes, 'refreshTokenTtlSeconds' | 'absoluteSessionLifetimeSeconds'>,
): Date {
  const own = now.getTime() + lifetimes.refreshTokenTtlSeconds * 1000;
  return new Date(Math.min(own, sessionEndsAt(sessionCreatedAt, lifetimes).getTime()));
}

/** One use of a refresh token: what the rotation primitive is asked to do. */
export interface Rotation {
  /** SHA-256 of the presented token. */
  presentedHash: string;
  /** SHA-256 of its successor; derived from the presented token, so every racer names the same one. */
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
   * successor is still unused and the session alive: hand the same successor out again.
   */
  | { status: 'reissued' }
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
  const sameSuccessor = token.successorHash === rotation.successorHash && successor !== null;
  if (inWindow && sameSuccessor && successor.usedAt === null && successor.expiresAt > rotation.now) return { status: 'reissued' };
  return { status: 'reused' };
}
