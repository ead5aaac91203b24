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
}

/** Outcome of the atomic rotation primitive. */
export type RotationResult =
  | { status: 'rotated' }
  /** The token exists but was already used (or its session is revoked): a replay. */
  | { status: 'reused' }
  | { status: 'unknown' };
