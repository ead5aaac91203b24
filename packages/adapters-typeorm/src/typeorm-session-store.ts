import {
  unclaimedRotationResult,
  type NewSession,
  type RefreshTokenRecord,
  type RefreshTokenWithHolder,
  type Rotation,
  type RotationResult,
  type SessionStore,
  type SessionHistoryEntry,
  type SessionSummary,
  type TenantScope,
  type UserWithSessionState,
} from '@svc/core';
import { deleteBounded } from './bounded-delete';
import type { Database, Sql } from './database';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, readBoolean, readDate, readNullableDate } from './row-values';
import {
  SESSION_SUMMARY,
  TOKEN_IN_SCOPE,
  TOKEN_WITH_HOLDER,
  UNCLAIMED_IN_SCOPE,
  USER_WITH_SESSION_STATE,
  tokenKeyInScope,
  type TokenWithHolderRow,
  type TokenWithSessionRow,
  type UnclaimedRow,
  type SessionSummaryRow,
  type UserWithSessionStateRow,
} from './session-statements';
import { toUser } from './typeorm-user-repository';
import { prepared } from './prepared';

/** A new session row; the client's address and user agent are kept for the device list. */
const INSERT_SESSION = `INSERT INTO sessions (id, project_id, environment, user_id, rotation_key, created_at, revoked_at, authenticated_at, client_address, user_agent)
   VALUES ($1, $2, $3, $4, $5, $6, NULL, $6, $7, $8)`;

/** PostgreSQL: a session and its first token in one statement (TypeormSessionStore.create). */
const OPEN_SESSION = prepared(`WITH opened AS (${INSERT_SESSION} RETURNING id, project_id, environment, created_at)
   INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
   SELECT $9::text, project_id, environment, id, created_at, $10::timestamptz FROM opened`);

/** PostgreSQL: a rotation's claim and its successor in one statement (TypeormSessionStore.rotateInOneStatement). */
const ROTATE = prepared(`WITH claimed AS (
     UPDATE refresh_tokens SET used_at = $4::timestamptz, successor_hash = $5::text
     WHERE ${tokenKeyInScope()}
       AND used_at IS NULL AND expires_at > $4::timestamptz
       AND EXISTS (SELECT 1 FROM sessions s
                   WHERE s.project_id = refresh_tokens.project_id AND s.environment = refresh_tokens.environment
                     AND s.id = refresh_tokens.session_id AND s.revoked_at IS NULL)
     RETURNING project_id, environment, session_id)
   INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
   SELECT $5::text, project_id, environment, session_id, $4::timestamptz, $6::timestamptz FROM claimed
   RETURNING session_id`);

/** SessionStore on PostgreSQL or SQLite; `rotate` is a single conditional UPDATE. */
export class TypeormSessionStore implements SessionStore {
  constructor(private readonly db: Database) {}

  /**
   * Session and first token together; the composite foreign key refuses a user of another scope.
   * On PostgreSQL one statement (a data-modifying CTE is atomic on its own, and the token's foreign
   * key sees the session inserted beside it), so a sign-in opens its session in one round trip
   * instead of BEGIN (or a savepoint inside the sign-in's unit of work), two INSERTs and COMMIT. On
   * SQLite, which has no such CTE, one transaction.
   */
  async create(scope: TenantScope, session: NewSession): Promise<void> {
    assertScope(scope);
    assertUuid(session.id, 'session id');
    assertUuid(session.userId, 'user id');
    assertText(session.refreshTokenHash, 'refresh token hash');
    assertDate(session.createdAt, 'createdAt');
    assertDate(session.refreshExpiresAt, 'refreshExpiresAt');
    const { projectId, environment } = scope;
    const sessionRow = [
      session.id,
      projectId,
      environment,
      session.userId,
      session.rotationKey,
      dateParam(session.createdAt),
      storableOrNull(session.client?.address),
      storableOrNull(session.client?.userAgent),
    ];
    const tokenRow = [session.refreshTokenHash, dateParam(session.refreshExpiresAt)];
    if (this.db.kind === 'postgres') {
      await this.db.query(OPEN_SESSION, [...sessionRow, ...tokenRow]);
      return;
    }
    await this.db.transaction(async (tx) => {
      await tx.query(INSERT_SESSION, sessionRow);
      await tx.query(
        `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [session.refreshTokenHash, projectId, environment, session.id, dateParam(session.createdAt), dateParam(session.refreshExpiresAt)],
      );
    });
  }

  async findRefreshToken(scope: TenantScope, tokenHash: string): Promise<RefreshTokenRecord | null> {
    if (!isScope(scope) || !isText(tokenHash)) return null;
    const rows = await this.db.query<TokenWithSessionRow>(TOKEN_IN_SCOPE, [scope.projectId, scope.environment, tokenHash]);
    return rows.length ? toRecord(rows[0]) : null;
  }

  async findRefreshTokenWithHolder(scope: TenantScope, tokenHash: string): Promise<RefreshTokenWithHolder | null> {
    if (!isScope(scope) || !isText(tokenHash)) return null;
    const [row] = await this.db.query<TokenWithHolderRow>(TOKEN_WITH_HOLDER, [scope.projectId, scope.environment, tokenHash]);
    if (!row) return null;
    return {
      token: {
        sessionId: row.session_id,
        userId: row.id,
        rotationKey: row.rotation_key,
        sessionRevokedAt: readNullableDate(row.session_revoked_at),
        sessionCreatedAt: readDate(row.session_created_at),
      },
      user: { id: row.id, email: row.email, role: row.role, bannedAt: readNullableDate(row.banned_at) },
    };
  }

  /**
   * The claim is ONE conditional UPDATE: only a row that is still unused, unexpired and whose
   * session is live gets `used_at` set. Concurrent callers on PostgreSQL queue on that row's lock
   * and, under READ COMMITTED, re-check `used_at IS NULL` against the winner's committed row, so
   * they match nothing; no SELECT-then-UPDATE window exists. On SQLite the transaction is
   * exclusive. Only the caller whose UPDATE returned the row inserts the successor, in the same
   * transaction, so a failed insert also undoes the claim. A caller that claimed nothing decides
   * reissue or replay on what it reads after its own UPDATE (see `unclaimed`).
   */
  async rotate(scope: TenantScope, rotation: Rotation): Promise<RotationResult> {
    const { presentedHash, successorHash, now, expiresAt } = rotation;
    if (!isScope(scope) || !isText(presentedHash)) return { status: 'unknown' };
    assertText(successorHash, 'successor hash');
    assertDate(now, 'now');
    assertDate(expiresAt, 'expiresAt');
    const { projectId, environment } = scope;
    if (this.db.kind === 'postgres') return this.rotateInOneStatement(scope, rotation);
    return this.db.transaction(async (tx) => {
      const claimed = await tx.query(
        `UPDATE refresh_tokens SET used_at = $4, successor_hash = $5
         WHERE project_id = $1 AND environment = $2 AND token_hash = $3
           AND used_at IS NULL AND expires_at > $4
           AND EXISTS (SELECT 1 FROM sessions s
                       WHERE s.project_id = refresh_tokens.project_id AND s.environment = refresh_tokens.environment
                         AND s.id = refresh_tokens.session_id AND s.revoked_at IS NULL)
         RETURNING session_id`,
        [projectId, environment, presentedHash, dateParam(now), successorHash],
      );
      if (claimed.length === 1) {
        await tx.query(
          `INSERT INTO refresh_tokens (token_hash, project_id, environment, session_id, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6)`,
          [successorHash, projectId, environment, claimed[0].session_id, dateParam(now), dateParam(expiresAt)],
        );
        return { status: 'rotated' };
      }
      return unclaimed(tx, scope, rotation);
    });
  }

  /**
   * PostgreSQL: the same claim and insert as ONE statement (a data-modifying CTE is atomic on its
   * own), so a rotation is one round trip instead of BEGIN, UPDATE, INSERT, COMMIT. Concurrent
   * callers queue on the row lock exactly as above; the loser's UPDATE re-checks
   * `used_at IS NULL`, claims nothing, and so inserts nothing.
   */
  private async rotateInOneStatement(scope: TenantScope, rotation: Rotation): Promise<RotationResult> {
    const { presentedHash, successorHash, now, expiresAt } = rotation;
    const inserted = await this.db.query(ROTATE, [scope.projectId, scope.environment, presentedHash, dateParam(now), successorHash, dateParam(expiresAt)]);
    return inserted.length === 1 ? { status: 'rotated' } : unclaimed(this.db, scope, rotation);
  }

  async isActive(scope: TenantScope, sessionId: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(sessionId)) return false;
    const rows = await this.db.query('SELECT 1 AS active FROM sessions WHERE project_id = $1 AND environment = $2 AND id = $3 AND revoked_at IS NULL', [scope.projectId, scope.environment, sessionId]);
    return rows.length === 1;
  }

  async findLiveSession(scope: TenantScope, userId: string, sessionId: string): Promise<UserWithSessionState | null> {
    if (!isScope(scope) || !isUuid(userId)) return null;
    // PostgreSQL would refuse to compare a uuid column with text that is no uuid: NULL matches nothing.
    const session = isUuid(sessionId) ? sessionId : null;
    const [row] = await this.db.query<UserWithSessionStateRow>(USER_WITH_SESSION_STATE, [scope.projectId, scope.environment, userId, session]);
    return row ? { user: toUser(row), sessionActive: readBoolean(row.session_active) } : null;
  }

  /** Newest first by the (project_id, environment, user_id) index; last use is the newest token. */
  async listHistory(scope: TenantScope, userId: string, options: { limit: number }): Promise<SessionHistoryEntry[]> {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError('limit must be a positive integer');
    if (!isScope(scope) || !isUuid(userId)) return [];
    const rows = await this.db.query<SessionHistoryRow>(
      `${SESSION_HISTORY} WHERE s.project_id = $1 AND s.environment = $2 AND s.user_id = $3
       ORDER BY s.created_at DESC, s.id DESC LIMIT $4`,
      [scope.projectId, scope.environment, userId, options.limit],
    );
    return rows.map(toHistoryEntry);
  }

  async findInHistory(scope: TenantScope, userId: string, sessionId: string): Promise<SessionHistoryEntry | null> {
    if (!isScope(scope) || !isUuid(userId) || !isUuid(sessionId)) return null;
    const rows = await this.db.query<SessionHistoryRow>(`${SESSION_HISTORY} WHERE s.project_id = $1 AND s.environment = $2 AND s.user_id = $3 AND s.id = $4`, [
      scope.projectId,
      scope.environment,
      userId,
      sessionId,
    ]);
    return rows.length ? toHistoryEntry(rows[0]) : null;
  }

  /** Idempotent: COALESCE keeps the first revocation time; true whenever the session exists. */
  async revoke(scope: TenantScope, sessionId: string, at: Date): Promise<boolean> {
    if (!isScope(scope) || !isUuid(sessionId)) return false;
    assertDate(at, 'at');
    const rows = await this.db.query(
      `UPDATE sessions SET revoked_at = COALESCE(revoked_at, $4)
       WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id`,
      [scope.projectId, scope.environment, sessionId, dateParam(at)],
    );
    return rows.length === 1;
  }

  async revokeAllForUser(scope: TenantScope, userId: string, at: Date, options: { except?: string } = {}): Promise<number> {
    if (!isScope(scope) || !isUuid(userId)) return 0;
    assertDate(at, 'at');
    const params = [scope.projectId, scope.environment, userId, dateParam(at)];
    // An `except` that is no uuid names no session, so nothing is kept.
    const keep = options.except !== undefined && isUuid(options.except) ? ` AND id <> $${params.push(options.except)}` : '';
    const rows = await this.db.query(
      `UPDATE sessions SET revoked_at = $4
       WHERE project_id = $1 AND environment = $2 AND user_id = $3 AND revoked_at IS NULL${keep} RETURNING id`,
      params,
    );
    return rows.length;
  }

  async findSession(scope: TenantScope, sessionId: string): Promise<SessionSummary | null> {
    if (!isScope(scope) || !isUuid(sessionId)) return null;
    const [row] = await this.db.query<SessionSummaryRow>(`${SESSION_SUMMARY} AND s.id = $3`, [scope.projectId, scope.environment, sessionId]);
    return row ? toSummary(row) : null;
  }

  async listForUser(scope: TenantScope, userId: string, now: Date): Promise<SessionSummary[]> {
    if (!isScope(scope) || !isUuid(userId)) return [];
    assertDate(now, 'now');
    const rows = await this.db.query<SessionSummaryRow>(
      `${SESSION_SUMMARY} AND s.user_id = $3
         AND EXISTS (SELECT 1 FROM refresh_tokens r WHERE r.project_id = s.project_id AND r.environment = s.environment
                     AND r.session_id = s.id AND r.expires_at > $4)`,
      [scope.projectId, scope.environment, userId, dateParam(now)],
    );
    return rows.map(toSummary).sort((a, b) => b.lastUsedAt.getTime() - a.lastUsedAt.getTime());
  }

  async recordAuthentication(scope: TenantScope, sessionId: string, at: Date): Promise<void> {
    if (!isScope(scope) || !isUuid(sessionId)) return;
    assertDate(at, 'at');
    await this.db.query('UPDATE sessions SET authenticated_at = $4 WHERE project_id = $1 AND environment = $2 AND id = $3 AND revoked_at IS NULL', [
      scope.projectId,
      scope.environment,
      sessionId,
      dateParam(at),
    ]);
  }

  /**
   * One transaction: the expired tokens go by a bounded delete (`refresh_tokens_expiry_idx`),
   * then, among the sessions they belonged to, those left without an unexpired token. Driving
   * the session check from the deleted tokens keeps it on indexes instead of scanning sessions,
   * and the transaction means no session can lose its last tokens without being checked.
   */
  async deleteExpired(now: Date, limit: number): Promise<{ refreshTokens: number; sessions: number }> {
    assertDate(now, 'now');
    return this.db.transaction(async (tx) => {
      const gone = await deleteBounded<{ session_id: string }>(tx, { table: 'refresh_tokens', key: 'token_hash', where: 'expires_at <= $1', returning: 'session_id' }, [dateParam(now)], limit);
      const touched = [...new Set(gone.map((row) => row.session_id))];
      let sessions = 0;
      for (let i = 0; i < touched.length; i += SESSION_CHUNK) {
        sessions += await deleteUnrefreshable(tx, now, touched.slice(i, i + SESSION_CHUNK));
      }
      return { refreshTokens: gone.length, sessions };
    });
  }

  /** Bounded delete through `sessions_revoked_idx`; the foreign key cascades to the tokens. */
  async deleteRevoked(revokedBefore: Date, limit: number): Promise<number> {
    assertDate(revokedBefore, 'revokedBefore');
    const rows = await deleteBounded(this.db, { table: 'sessions', key: 'id', where: 'revoked_at IS NOT NULL AND revoked_at <= $1', returning: 'id' }, [dateParam(revokedBefore)], limit);
    return rows.length;
  }
}

/**
 * Nothing claimed: core's `unclaimedRotationResult` on the token as read now. The read comes
 * after our own failed UPDATE, which on PostgreSQL waited for a concurrent winner's row lock (or
 * saw its commit) and on SQLite ran after it, so it sees that rotation and its successor: a racer
 * inside the grace window is `reissued`, never mistaken for a replay.
 */
async function unclaimed(sql: Sql, scope: TenantScope, rotation: Rotation): Promise<RotationResult> {
  const [row] = await sql.query<UnclaimedRow>(UNCLAIMED_IN_SCOPE, [scope.projectId, scope.environment, rotation.presentedHash]);
  if (!row) return unclaimedRotationResult(null, rotation);
  const successor = row.next_hash === null ? null : { usedAt: readNullableDate(row.next_used_at), expiresAt: readDate(row.next_expires_at) };
  return unclaimedRotationResult({ usedAt: readNullableDate(row.used_at), successorHash: row.successor_hash, sessionRevokedAt: readNullableDate(row.session_revoked_at), successor }, rotation);
}

/** Session ids per statement: far below SQLite's limit on bound parameters. */
const SESSION_CHUNK = 500;

/** Deletes those of `ids` that have no token unexpired at `now` (probed via refresh_tokens_session_idx). */
async function deleteUnrefreshable(tx: Sql, now: Date, ids: string[]): Promise<number> {
  const list = ids.map((_, i) => `$${i + 2}`).join(', ');
  const rows = await tx.query(
    `DELETE FROM sessions WHERE id IN (${list}) AND NOT EXISTS (
       SELECT 1 FROM refresh_tokens t
       WHERE t.project_id = sessions.project_id AND t.environment = sessions.environment
         AND t.session_id = sessions.id AND t.expires_at > $1)
     RETURNING id`,
    [dateParam(now), ...ids],
  );
  return rows.length;
}

/** Client text that a database cannot hold is dropped rather than failing the sign-in. */
function storableOrNull(value: string | null | undefined): string | null {
  return isText(value) ? value : null;
}

function toSummary(row: SessionSummaryRow): SessionSummary {
  const createdAt = readDate(row.created_at);
  const lastIssued = readNullableDate(row.last_issued_at);
  return {
    id: row.id,
    userId: row.user_id,
    createdAt,
    authenticatedAt: readNullableDate(row.authenticated_at) ?? createdAt,
    lastUsedAt: lastIssued && lastIssued > createdAt ? lastIssued : createdAt,
    address: row.client_address,
    userAgent: row.user_agent,
  };
}

function toRecord(row: TokenWithSessionRow): RefreshTokenRecord {
  return {
    tokenHash: row.token_hash,
    sessionId: row.session_id,
    userId: row.user_id,
    rotationKey: row.rotation_key,
    createdAt: readDate(row.created_at),
    expiresAt: readDate(row.expires_at),
    usedAt: readNullableDate(row.used_at),
    successorHash: row.successor_hash,
    sessionRevokedAt: readNullableDate(row.session_revoked_at),
    sessionCreatedAt: readDate(row.session_created_at),
  };
}

const SESSION_HISTORY = `
  SELECT s.id, s.created_at, s.revoked_at, s.client_address, s.user_agent,
         (SELECT max(t.created_at) FROM refresh_tokens t
          WHERE t.project_id = s.project_id AND t.environment = s.environment AND t.session_id = s.id) AS last_used_at
  FROM sessions s`;

type SessionHistoryRow = { id: string; created_at: unknown; revoked_at: unknown; last_used_at: unknown; client_address: string | null; user_agent: string | null };

function toHistoryEntry(row: SessionHistoryRow): SessionHistoryEntry {
  const createdAt = readDate(row.created_at);
  // Tokens may have been purged (an expired session): then the sign-in is its last known use.
  const lastUsedAt = row.last_used_at === null || row.last_used_at === undefined ? createdAt : readDate(row.last_used_at);
  return { id: row.id, createdAt, lastUsedAt, revokedAt: readNullableDate(row.revoked_at), address: row.client_address, userAgent: row.user_agent };
}
