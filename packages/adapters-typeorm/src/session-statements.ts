// The statements of TypeormSessionStore that read, with the rows they answer.
import type { RefreshTokenRow, SessionRow, UserRow } from './rows';
import { USER_COLUMNS } from './typeorm-user-repository';
import { prepared } from './prepared';

// The statements below read a token with its session, pinned to the scope: $1 project,
// $2 environment, $3 the token's hash. Only the token is matched on the scope. Its session and
// the session's user are joined by primary key: the composite foreign keys (refresh_tokens ->
// sessions -> users, on project_id, environment and id) already hold them in the token's scope,
// and naming the scope's columns again in the joins only gave the planner more paths to weigh,
// about a quarter of the token read's planning (docs/decisions.md, "Tenant scope in joins").
const TOKEN_AND_SESSION = `FROM refresh_tokens t
  JOIN sessions s ON s.id = t.session_id`;
/**
 * The presented token ($3) in its scope ($1, $2), `table` the alias and its dot: found by its key
 * alone (the primary key), the scope checked on that row with IS NOT DISTINCT FROM, which no index
 * serves (both columns are NOT NULL, so it means `=` here). With `=`, a plan made from statistics
 * of a table that has grown since may read the token through the tenant's (project_id,
 * environment, ...) indexes, every token of the tenant, where the custom plan takes the key
 * (prepared-plans.test.ts).
 */
export function tokenKeyInScope(table = ''): string {
  return `${table}token_hash = $3 AND ${table}project_id IS NOT DISTINCT FROM $1 AND ${table}environment IS NOT DISTINCT FROM $2`;
}
const PRESENTED = `WHERE ${tokenKeyInScope('t.')}`;

/** A token joined with its session, as TOKEN_IN_SCOPE selects it. */
export type TokenWithSessionRow = Pick<RefreshTokenRow, 'token_hash' | 'session_id' | 'created_at' | 'expires_at' | 'used_at' | 'successor_hash'> &
  Pick<SessionRow, 'user_id' | 'rotation_key'> & { session_revoked_at: SessionRow['revoked_at']; session_created_at: SessionRow['created_at'] };

/** The token with its session. */
export const TOKEN_IN_SCOPE = `
  SELECT t.token_hash, t.session_id, s.user_id, s.rotation_key, t.created_at, t.expires_at,
         t.used_at, t.successor_hash, s.revoked_at AS session_revoked_at, s.created_at AS session_created_at
  ${TOKEN_AND_SESSION}
  ${PRESENTED}`;

/**
 * The same token with the session's user, in one statement: only the columns a refresh decides on
 * and signs (RefreshTokenWithHolder). Every further column, a timestamp or the user's meta above
 * all, is parsed by the driver on each refresh (bench/README.md, round 7).
 */
export const TOKEN_WITH_HOLDER = prepared(`
  SELECT u.id, u.email, u.role, u.banned_at, t.session_id, s.rotation_key,
         s.revoked_at AS session_revoked_at, s.created_at AS session_created_at
  ${TOKEN_AND_SESSION}
  JOIN users u ON u.id = s.user_id
  ${PRESENTED}`);

export type TokenWithHolderRow = Pick<UserRow, 'id' | 'email' | 'role' | 'banned_at'> & Pick<TokenWithSessionRow, 'session_id' | 'rotation_key' | 'session_revoked_at' | 'session_created_at'>;

/**
 * A user with an EXISTS on one session (the same test as isActive), in one statement. $1 project,
 * $2 environment, $3 user id, $4 session id (NULL for an id that names no session).
 */
export const USER_WITH_SESSION_STATE = prepared(`
  SELECT ${USER_COLUMNS.join(', ')},
         EXISTS (SELECT 1 FROM sessions s WHERE s.project_id = $1 AND s.environment = $2 AND s.id = $4
                 AND s.user_id = $3 AND s.revoked_at IS NULL) AS session_active
  FROM users WHERE project_id = $1 AND environment = $2 AND id = $3`);

export type UserWithSessionStateRow = UserRow & { session_active: unknown };

/**
 * A token with its session and its successor, for a rotation whose claim failed (same parameters).
 * Only that path reads it; a claim that succeeds never does.
 */
export const UNCLAIMED_IN_SCOPE = `
  SELECT t.used_at, t.successor_hash, s.revoked_at AS session_revoked_at,
         n.token_hash AS next_hash, n.used_at AS next_used_at, n.expires_at AS next_expires_at
  ${TOKEN_AND_SESSION}
  LEFT JOIN refresh_tokens n ON n.project_id = t.project_id AND n.environment = t.environment AND n.token_hash = t.successor_hash
  ${PRESENTED}`;

/** A token after a failed claim, with its session's revocation and its successor (UNCLAIMED_IN_SCOPE). */
export type UnclaimedRow = Pick<RefreshTokenRow, 'used_at' | 'successor_hash'> & {
  session_revoked_at: SessionRow['revoked_at'];
  next_hash: RefreshTokenRow['token_hash'] | null;
  next_used_at: RefreshTokenRow['used_at'];
  next_expires_at: RefreshTokenRow['expires_at'];
};

/**
 * Live sessions in the scope ($1 project, $2 environment) with when their newest refresh token
 * was issued; callers add `AND s....` conditions from $3 on.
 */
export const SESSION_SUMMARY = `
  SELECT s.id, s.user_id, s.created_at, s.authenticated_at, s.client_address, s.user_agent,
         (SELECT MAX(r.created_at) FROM refresh_tokens r
          WHERE r.project_id = s.project_id AND r.environment = s.environment AND r.session_id = s.id) AS last_issued_at
  FROM sessions s
  WHERE s.project_id = $1 AND s.environment = $2 AND s.revoked_at IS NULL`;

export type SessionSummaryRow = Pick<SessionRow, 'id' | 'user_id' | 'created_at' | 'authenticated_at' | 'client_address' | 'user_agent'> & {
  last_issued_at: unknown;
};
