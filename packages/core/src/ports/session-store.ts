import type { TenantScope } from '../domain/environment';
import type { RefreshTokenRecord, Rotation, RotationResult, SessionClient, SessionSummary } from '../domain/session';
import type { User } from '../domain/user';

export interface NewSession {
  id: string;
  userId: string;
  rotationKey: string;
  createdAt: Date;
  /** The first refresh token of the session (its SHA-256) and when it expires. */
  refreshTokenHash: string;
  refreshExpiresAt: Date;
  /** Where the sign-in came from; unknown parts are null (the default). */
  client?: SessionClient;
}

/**
 * A refresh token with the user whose session it belongs to: what a refresh decides on and signs,
 * nothing more (each further column is parsed per refresh; bench/README.md, round 7).
 */
export interface RefreshTokenWithHolder {
  token: Pick<RefreshTokenRecord, 'sessionId' | 'userId' | 'rotationKey' | 'sessionRevokedAt' | 'sessionCreatedAt'>;
  user: Pick<User, 'id' | 'email' | 'role' | 'bannedAt'>;
}

/** A user with the state of one session, as `/me` needs them. */
export interface UserWithSessionState {
  user: User;
  /** What `isActive` answers for the session. */
  sessionActive: boolean;
}

/** One session of a user as an operator sees it, with the client that signed in (unknown parts null). */
export interface SessionHistoryEntry extends SessionClient {
  id: string;
  createdAt: Date;
  /** When its newest refresh token was issued (sign-in or the latest refresh). */
  lastUsedAt: Date;
  revokedAt: Date | null;
}

export interface SessionStore {
  /** Starts a session (a rotation family) with its first refresh token. */
  create(scope: TenantScope, session: NewSession): Promise<void>;
  /** The refresh token with this hash, used or not, with its session's state; null if unknown. */
  findRefreshToken(scope: TenantScope, tokenHash: string): Promise<RefreshTokenRecord | null>;
  /**
   * What `findRefreshToken` answers for `tokenHash`, with the user holding the token (what
   * `UserRepository.findById` answers for its `userId`); null when either is missing. Refresh
   * reads it before rotating: a SQL store answers in one statement.
   */
  findRefreshTokenWithHolder(scope: TenantScope, tokenHash: string): Promise<RefreshTokenWithHolder | null>;
  /**
   * The rotation primitive. In one atomic conditional step: if the token `presentedHash` exists,
   * is unused, unexpired at `now` and its session is not revoked, mark it used (recording
   * `successorHash`) and insert the successor with `expiresAt` -> `rotated`. Otherwise nothing
   * changes, and the answer is `unclaimedRotationResult` of the token as read after that failed
   * claim (so it sees any concurrent rotation that won): `reissued` inside the grace window,
   * `reused` for a replay, `unknown` for a token not in the scope or unused but expired.
   * Of concurrent calls with one token, exactly one is `rotated`; with `reuseGraceSeconds > 0`
   * every other one inside the window is `reissued`, with 0 every other one is `reused`.
   */
  rotate(scope: TenantScope, rotation: Rotation): Promise<RotationResult>;
  /** True when the session exists in the scope and is not revoked. */
  isActive(scope: TenantScope, sessionId: string): Promise<boolean>;
  /**
   * The user `userId` (what `UserRepository.findById` answers) with whether the session
   * `sessionId` is live (what `isActive` answers) and that user's (a session of another user is
   * not live for this one); null when the user is missing. `/me`, the hottest path, reads it: a
   * SQL store answers in one statement.
   */
  findLiveSession(scope: TenantScope, userId: string, sessionId: string): Promise<UserWithSessionState | null>;
  /** The user's sessions in the scope, newest first, at most `limit`; revoked ones included. */
  listHistory(scope: TenantScope, userId: string, options: { limit: number }): Promise<SessionHistoryEntry[]>;
  /** The session `sessionId` if it belongs to `userId` in the scope; null otherwise. */
  findInHistory(scope: TenantScope, userId: string, sessionId: string): Promise<SessionHistoryEntry | null>;
  /** Revokes one session (idempotent). False when it does not exist in the scope. */
  revoke(scope: TenantScope, sessionId: string, at: Date): Promise<boolean>;
  /**
   * Revokes every session of the user in the scope, but `except` (the caller's own, when it
   * signs out its other devices); returns how many were active.
   */
  revokeAllForUser(scope: TenantScope, userId: string, at: Date, options?: { except?: string }): Promise<number>;
  /**
   * The session `sessionId` in the scope if it is not revoked, else null. `authenticatedAt` is
   * its sign-in unless `recordAuthentication` moved it; `lastUsedAt` is when its newest refresh
   * token was issued.
   */
  findSession(scope: TenantScope, sessionId: string): Promise<SessionSummary | null>;
  /**
   * The user's sessions in the scope that are not revoked and still hold a refresh token
   * unexpired at `now` (the ones that can still be used), most recently used first.
   */
  listForUser(scope: TenantScope, userId: string, now: Date): Promise<SessionSummary[]>;
  /**
   * Records that the user proved a factor again in this live session at `at` (a reauthentication).
   * No effect on a revoked or unknown session.
   */
  recordAuthentication(scope: TenantScope, sessionId: string, at: Date): Promise<void>;
  /**
   * Housekeeping over every tenant (the janitor; unlike the methods above it takes no scope).
   * Deletes up to `limit` refresh tokens with `expiresAt <= now`, used or not (a used token past
   * its expiry can no longer be replayed meaningfully), and in the same atomic step every session
   * those deletions leave without an unexpired token: nobody can refresh it any more, and reads
   * treat a missing session as not active. Unexpired tokens stay, used ones too (replay detection
   * needs them). Answers the tokens deleted (at most `limit`) and the sessions that went with them.
   */
  deleteExpired(now: Date, limit: number): Promise<{ refreshTokens: number; sessions: number }>;
  /**
   * Housekeeping over every tenant: deletes up to `limit` sessions revoked at or before
   * `revokedBefore`, with their refresh tokens (a token of a missing session is unknown, which
   * refresh and logout answer exactly as for a revoked one). Answers how many sessions.
   */
  deleteRevoked(revokedBefore: Date, limit: number): Promise<number>;
}
