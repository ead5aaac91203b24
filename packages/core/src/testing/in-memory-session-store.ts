import { sameScope, type TenantScope } from '../domain/environment';
import { unclaimedRotationResult, type RefreshTokenRecord, type Rotation, type RotationResult, type SessionSummary } from '../domain/session';
import type { NewSession, RefreshTokenWithHolder, SessionHistoryEntry, SessionStore, UserWithSessionState } from '../ports/session-store';
import type { UserRepository } from '../ports/user-repository';

interface StoredSession extends TenantScope {
  id: string;
  userId: string;
  rotationKey: string;
  createdAt: Date;
  revokedAt: Date | null;
  authenticatedAt: Date;
  address: string | null;
  userAgent: string | null;
}

interface StoredToken extends TenantScope {
  tokenHash: string;
  sessionId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  successorHash: string | null;
}

/**
 * Reference SessionStore kept in process memory; rotate() has no await, so it is atomic. The
 * joined reads (a token's holder, `/me`'s user) come from the user repository it is given, as a
 * SQL store joins the users table.
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, StoredSession>();
  private readonly tokens = new Map<string, StoredToken>();

  constructor(private readonly users: Pick<UserRepository, 'findById'>) {}

  async create(scope: TenantScope, s: NewSession): Promise<void> {
    const { projectId, environment } = scope;
    this.sessions.set(s.id, {
      projectId,
      environment,
      id: s.id,
      userId: s.userId,
      rotationKey: s.rotationKey,
      createdAt: s.createdAt,
      revokedAt: null,
      authenticatedAt: s.createdAt,
      address: s.client?.address ?? null,
      userAgent: s.client?.userAgent ?? null,
    });
    this.tokens.set(s.refreshTokenHash, {
      projectId,
      environment,
      tokenHash: s.refreshTokenHash,
      sessionId: s.id,
      createdAt: s.createdAt,
      expiresAt: s.refreshExpiresAt,
      usedAt: null,
      successorHash: null,
    });
  }

  async findRefreshToken(scope: TenantScope, tokenHash: string): Promise<RefreshTokenRecord | null> {
    const token = this.tokens.get(tokenHash);
    if (!token || !sameScope(token, scope)) return null;
    const session = this.sessions.get(token.sessionId)!;
    return {
      tokenHash: token.tokenHash,
      sessionId: session.id,
      userId: session.userId,
      rotationKey: session.rotationKey,
      createdAt: token.createdAt,
      expiresAt: token.expiresAt,
      usedAt: token.usedAt,
      successorHash: token.successorHash,
      sessionRevokedAt: session.revokedAt,
      sessionCreatedAt: session.createdAt,
    };
  }

  async findRefreshTokenWithHolder(scope: TenantScope, tokenHash: string): Promise<RefreshTokenWithHolder | null> {
    const token = await this.findRefreshToken(scope, tokenHash);
    const user = token && (await this.users.findById(scope, token.userId));
    if (!token || !user) return null;
    const { sessionId, userId, rotationKey, sessionRevokedAt, sessionCreatedAt } = token;
    return { token: { sessionId, userId, rotationKey, sessionRevokedAt, sessionCreatedAt }, user: { id: user.id, email: user.email, role: user.role, bannedAt: user.bannedAt } };
  }

  async rotate(scope: TenantScope, r: Rotation): Promise<RotationResult> {
    const token = this.tokens.get(r.presentedHash);
    if (!token || !sameScope(token, scope)) return { status: 'unknown' };
    const session = this.sessions.get(token.sessionId)!;
    if (token.usedAt || session.revokedAt || token.expiresAt <= r.now) {
      const successor = token.successorHash ? this.tokens.get(token.successorHash) : undefined;
      return unclaimedRotationResult({ ...token, sessionRevokedAt: session.revokedAt, successor: successor ?? null }, r);
    }
    token.usedAt = r.now;
    token.successorHash = r.successorHash;
    this.tokens.set(r.successorHash, {
      projectId: scope.projectId,
      environment: scope.environment,
      tokenHash: r.successorHash,
      sessionId: session.id,
      createdAt: r.now,
      expiresAt: r.expiresAt,
      usedAt: null,
      successorHash: null,
    });
    return { status: 'rotated' };
  }

  async isActive(scope: TenantScope, sessionId: string): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    return !!session && sameScope(session, scope) && session.revokedAt === null;
  }

  async findLiveSession(scope: TenantScope, userId: string, sessionId: string): Promise<UserWithSessionState | null> {
    const user = await this.users.findById(scope, userId);
    return user ? { user, sessionActive: this.sessions.get(sessionId)?.userId === userId && (await this.isActive(scope, sessionId)) } : null;
  }

  async listHistory(scope: TenantScope, userId: string, options: { limit: number }): Promise<SessionHistoryEntry[]> {
    return [...this.sessions.values()]
      .filter((s) => sameScope(s, scope) && s.userId === userId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, options.limit)
      .map((s) => this.historyEntry(s));
  }

  async findInHistory(scope: TenantScope, userId: string, sessionId: string): Promise<SessionHistoryEntry | null> {
    const session = this.sessions.get(sessionId);
    return session && sameScope(session, scope) && session.userId === userId ? this.historyEntry(session) : null;
  }

  forgetProject(projectId: string): void {
    for (const [id, session] of this.sessions) if (session.projectId === projectId) this.sessions.delete(id);
    for (const [hash, token] of this.tokens) if (token.projectId === projectId) this.tokens.delete(hash);
  }

  private historyEntry(session: StoredSession): SessionHistoryEntry {
    let lastUsedAt = session.createdAt;
    for (const token of this.tokens.values()) {
      if (token.sessionId === session.id && token.createdAt > lastUsedAt) lastUsedAt = token.createdAt;
    }
    return { id: session.id, createdAt: session.createdAt, lastUsedAt, revokedAt: session.revokedAt, address: session.address, userAgent: session.userAgent };
  }

  async revoke(scope: TenantScope, sessionId: string, at: Date): Promise<boolean> {
    const session = this.sessions.get(sessionId);
    if (!session || !sameScope(session, scope)) return false;
    session.revokedAt ??= at;
    return true;
  }

  async revokeAllForUser(scope: TenantScope, userId: string, at: Date, options: { except?: string } = {}): Promise<number> {
    let revoked = 0;
    for (const session of this.sessions.values()) {
      if (sameScope(session, scope) && session.userId === userId && session.revokedAt === null && session.id !== options.except) {
        session.revokedAt = at;
        revoked += 1;
      }
    }
    return revoked;
  }

  async findSession(scope: TenantScope, sessionId: string): Promise<SessionSummary | null> {
    const session = this.sessions.get(sessionId);
    return session && sameScope(session, scope) && session.revokedAt === null ? this.summary(session) : null;
  }

  async listForUser(scope: TenantScope, userId: string, now: Date): Promise<SessionSummary[]> {
    const refreshable = new Set([...this.tokens.values()].filter((t) => t.expiresAt > now).map((t) => t.sessionId));
    return [...this.sessions.values()]
      .filter((s) => sameScope(s, scope) && s.userId === userId && s.revokedAt === null && refreshable.has(s.id))
      .map((s) => this.summary(s))
      .sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
  }

  async recordAuthentication(scope: TenantScope, sessionId: string, at: Date): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session && sameScope(session, scope) && session.revokedAt === null) session.authenticatedAt = at;
  }

  async deleteExpired(now: Date, limit: number): Promise<{ refreshTokens: number; sessions: number }> {
    const expired = [...this.tokens.values()].filter((t) => t.expiresAt <= now).slice(0, limit);
    expired.forEach((t) => this.tokens.delete(t.tokenHash));
    const live = new Set([...this.tokens.values()].filter((t) => t.expiresAt > now).map((t) => t.sessionId));
    const ended = [...new Set(expired.map((t) => t.sessionId))].filter((id) => !live.has(id));
    ended.forEach((id) => this.deleteSession(id));
    return { refreshTokens: expired.length, sessions: ended.length };
  }

  async deleteRevoked(revokedBefore: Date, limit: number): Promise<number> {
    const revoked = [...this.sessions.values()].filter((s) => s.revokedAt !== null && s.revokedAt <= revokedBefore).slice(0, limit);
    revoked.forEach((s) => this.deleteSession(s.id));
    return revoked.length;
  }

  private summary(s: StoredSession): SessionSummary {
    const issued = [...this.tokens.values()].filter((t) => t.sessionId === s.id).map((t) => t.createdAt.getTime());
    return {
      id: s.id,
      userId: s.userId,
      createdAt: s.createdAt,
      authenticatedAt: s.authenticatedAt,
      lastUsedAt: new Date(Math.max(s.createdAt.getTime(), ...issued)),
      address: s.address,
      userAgent: s.userAgent,
    };
  }

  /** A session goes with its tokens, as the foreign key cascades in SQL. */
  private deleteSession(id: string): void {
    this.sessions.delete(id);
    for (const token of this.tokens.values()) if (token.sessionId === id) this.tokens.delete(token.tokenHash);
  }
}
