import type { CreateUserResult, TenantScope, User, UserListQuery, UserPage, UserProfileChanges, UserRepository } from '@svc/core';
import type { Database, Sql } from './database';
import type { UserRow } from './rows';
import { containsPattern, likeCondition } from './like-pattern';
import { NaturalBatch } from './natural-batch';
import { assertDate, assertScope, assertText, assertUuid, isScope, isText, isUuid } from './guards';
import { dateParam, jsonParam, nullableDateParam, readBoolean, readCount, readDate, readJson, readNullableDate } from './row-values';
import { prepared } from './prepared';

/** The columns `toUser` reads (the session store's joined reads select them too). */
export const USER_COLUMNS = ['id', 'email', 'password_hash', 'role', 'meta', 'email_verified', 'banned_at', 'created_at', 'last_login_at'] as const;
const COLUMNS = USER_COLUMNS.join(', ');
/** The same columns of `users AS u`, for statements that join it. */
const U_COLUMNS = USER_COLUMNS.map((column) => `u.${column}`).join(', ');

const USER_BY_EMAIL = prepared(`SELECT ${COLUMNS} FROM users WHERE project_id = $1 AND environment = $2 AND email = $3`);

/**
 * PostgreSQL: several lookups in one statement, their addresses as arrays (`unnest`), each row
 * answered to its lookup by position (`WITH ORDINALITY`); (project_id, environment, email) is
 * unique, so a lookup finds one row or none. Not prepared: planned without the arrays, the join
 * reads every user (prepared-plans.test.ts).
 */
const USERS_BY_EMAIL = `SELECT q.lookup, ${U_COLUMNS}
   FROM unnest($1::uuid[], $2::text[], $3::text[]) WITH ORDINALITY AS q (project_id, environment, email, lookup)
   JOIN users AS u ON u.project_id = q.project_id AND u.environment = q.environment AND u.email = q.email`;

const RECORD_LOGIN = prepared('UPDATE users SET last_login_at = $4 WHERE project_id = $1 AND environment = $2 AND id = $3');

/** An address to look up in a tenant. */
interface EmailLookup {
  scope: TenantScope;
  email: string;
}

/** The most addresses one lookup statement carries (`findManyByEmail`). */
const LOOKUPS_PER_STATEMENT = 50;

/** UserRepository on PostgreSQL or SQLite. Every statement filters on (project_id, environment). */
export class TypeormUserRepository implements UserRepository {
  /**
   * PostgreSQL: lookups by address made outside a unit of work (a mail request's, after its answer;
   * a sign-in's) that arrive while one is in flight go together in the next statement. A read
   * has no commit to share, but each statement's parse and plan cost PostgreSQL several times its
   * execution, and each is a round trip of the API's (bench/README.md, round 33).
   */
  private readonly byEmail = new NaturalBatch<EmailLookup, UserRow | undefined>({
    many: (lookups) => this.findManyByEmail(lookups),
    one: (lookup) => this.findOneByEmail(lookup),
    maxItems: LOOKUPS_PER_STATEMENT,
  });

  constructor(private readonly db: Database) {}

  /**
   * Check e-mail, count, insert — as one critical section per scope. On PostgreSQL the advisory
   * lock keyed on (project_id, environment) makes concurrent sign-ups of one tenant queue here
   * (a row lock cannot do it: the row that would conflict does not exist yet), while other
   * tenants proceed in parallel. On SQLite every transaction is exclusive anyway. The unique
   * (project_id, environment, email) constraint stays the last word: ON CONFLICT DO NOTHING turns
   * a lost race into `exists`.
   *
   * With no limit there is nothing to count, and that constraint alone decides: the insert is the
   * one statement, with no lock, so a tenant's sign-ups do not queue behind each other (and a
   * sign-up sends four statements fewer: the savepoint or transaction, the lock, the check).
   */
  async createWithinLimit(scope: TenantScope, user: User, options: { limit: number | null }): Promise<CreateUserResult> {
    assertScope(scope);
    assertUuid(user.id, 'user id');
    assertText(user.email, 'email');
    assertDate(user.createdAt, 'createdAt');
    const { limit } = options;
    if (limit !== null && !(Number.isInteger(limit) && limit >= 0)) throw new RangeError('limit must be null or an integer >= 0');
    const { projectId, environment } = scope;
    const insert = async (sql: Sql): Promise<CreateUserResult> => {
      const inserted = await sql.query(
        `INSERT INTO users (id, project_id, environment, email, password_hash, role, meta, email_verified,
           banned_at, created_at, last_login_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (project_id, environment, email) DO NOTHING
         RETURNING id`,
        [
          user.id,
          projectId,
          environment,
          user.email,
          user.passwordHash,
          user.role,
          jsonParam(user.meta),
          user.emailVerified === true,
          nullableDateParam(user.bannedAt),
          dateParam(user.createdAt),
          nullableDateParam(user.lastLoginAt),
        ],
      );
      return inserted.length ? { status: 'created' } : { status: 'exists' };
    };
    if (limit === null) return insert(this.db);
    return this.db.transaction(
      async (tx) => {
        const existing = await tx.query('SELECT 1 AS found FROM users WHERE project_id = $1 AND environment = $2 AND email = $3', [projectId, environment, user.email]);
        if (existing.length) return { status: 'exists' };
        const [row] = await tx.query('SELECT count(*) AS n FROM users WHERE project_id = $1 AND environment = $2', [projectId, environment]);
        if (readCount(row.n) >= limit) return { status: 'limit_reached' };
        return insert(tx);
      },
      { lock: `users:${projectId}:${environment}` },
    );
  }

  async findByEmail(scope: TenantScope, email: string): Promise<User | null> {
    if (!isScope(scope) || !isText(email)) return null;
    const lookup = { scope, email };
    const row = this.db.mayShareStatements() ? await this.byEmail.add(lookup) : await this.findOneByEmail(lookup);
    return row ? toUser(row) : null;
  }

  private async findOneByEmail({ scope, email }: EmailLookup): Promise<UserRow | undefined> {
    const rows = await this.db.query<UserRow>(USER_BY_EMAIL, [scope.projectId, scope.environment, email]);
    return rows[0];
  }

  /** USERS_BY_EMAIL. */
  private async findManyByEmail(lookups: readonly EmailLookup[]): Promise<(UserRow | undefined)[]> {
    const rows = await this.db.query<UserRow & { lookup: number | string }>(USERS_BY_EMAIL, [
      lookups.map((l) => l.scope.projectId),
      lookups.map((l) => l.scope.environment),
      lookups.map((l) => l.email),
    ]);
    const found: (UserRow | undefined)[] = lookups.map(() => undefined);
    for (const row of rows) found[Number(row.lookup) - 1] = row;
    return found;
  }

  async findById(scope: TenantScope, id: string): Promise<User | null> {
    if (!isScope(scope) || !isUuid(id)) return null;
    const rows = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE project_id = $1 AND environment = $2 AND id = $3`, [scope.projectId, scope.environment, id]);
    return rows.length ? toUser(rows[0]) : null;
  }

  async recordLogin(scope: TenantScope, id: string, at: Date): Promise<void> {
    if (!isScope(scope) || !isUuid(id)) return;
    assertDate(at, 'at');
    await this.db.query(RECORD_LOGIN, [scope.projectId, scope.environment, id, dateParam(at)]);
  }

  async setPassword(scope: TenantScope, id: string, passwordHash: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    assertText(passwordHash, 'password hash');
    const rows = await this.db.query('UPDATE users SET password_hash = $4 WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [scope.projectId, scope.environment, id, passwordHash]);
    return rows.length === 1;
  }

  async clearPassword(scope: TenantScope, id: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    const rows = await this.db.query('UPDATE users SET password_hash = NULL WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [scope.projectId, scope.environment, id]);
    return rows.length === 1;
  }

  /**
   * One UPDATE; the unique (project_id, environment, email) constraint refuses an address another
   * user holds, also one taken concurrently, which is then read back as `exists`.
   */
  async changeEmail(scope: TenantScope, id: string, email: string): Promise<'changed' | 'exists' | 'not_found'> {
    if (!isScope(scope) || !isUuid(id)) return 'not_found';
    assertText(email, 'email');
    const params = [scope.projectId, scope.environment, id, email];
    try {
      // A transaction of its own, so that the refusal stays inside it (a savepoint within a unit of work).
      const rows = await this.db.transaction((tx) => tx.query('UPDATE users SET email = $4, email_verified = TRUE WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', params));
      return rows.length === 1 ? 'changed' : 'not_found';
    } catch (error) {
      const holder = await this.db.query('SELECT id FROM users WHERE project_id = $1 AND environment = $2 AND email = $3', [scope.projectId, scope.environment, email]);
      if (holder.length && holder[0].id !== id) return 'exists';
      throw error;
    }
  }

  async markEmailVerified(scope: TenantScope, id: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    const rows = await this.db.query('UPDATE users SET email_verified = TRUE WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [scope.projectId, scope.environment, id]);
    return rows.length === 1;
  }

  async setBanned(scope: TenantScope, id: string, bannedAt: Date | null): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    if (bannedAt !== null) assertDate(bannedAt, 'bannedAt');
    const rows = await this.db.query('UPDATE users SET banned_at = $4 WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [
      scope.projectId,
      scope.environment,
      id,
      nullableDateParam(bannedAt),
    ]);
    return rows.length === 1;
  }

  /** Sessions and refresh tokens go with the user (ON DELETE CASCADE). */
  async delete(scope: TenantScope, id: string): Promise<boolean> {
    if (!isScope(scope) || !isUuid(id)) return false;
    const rows = await this.db.query('DELETE FROM users WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING id', [scope.projectId, scope.environment, id]);
    return rows.length === 1;
  }

  /** One UPDATE ... RETURNING over the fields given; the others keep their values. */
  async updateProfile(scope: TenantScope, id: string, changes: UserProfileChanges): Promise<User | null> {
    if (!isScope(scope) || !isUuid(id)) return null;
    const params: unknown[] = [scope.projectId, scope.environment, id];
    const sets: string[] = [];
    if (changes.role !== undefined) sets.push(`role = $${params.push(changes.role)}`);
    if (changes.meta !== undefined) sets.push(`meta = $${params.push(jsonParam(changes.meta))}`);
    if (changes.emailVerified !== undefined) sets.push(`email_verified = $${params.push(changes.emailVerified === true)}`);
    if (sets.length === 0) return this.findById(scope, id);
    const rows = await this.db.query<UserRow>(`UPDATE users SET ${sets.join(', ')} WHERE project_id = $1 AND environment = $2 AND id = $3 RETURNING ${COLUMNS}`, params);
    return rows.length ? toUser(rows[0]) : null;
  }

  /**
   * Keyset paging by id (served by the unique (project_id, environment, id) index). One extra
   * row is fetched to know whether a next page exists. A cursor that is not an id we could have
   * issued matches nothing, like any other unknown id. A search walks that index and filters
   * (a substring cannot use a b-tree), so a page costs what it takes to find its rows.
   */
  async list(scope: TenantScope, query: UserListQuery): Promise<UserPage> {
    const { email, search, limit, cursor } = query;
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
    if (!isScope(scope) || (cursor !== undefined && !isUuid(cursor)) || !optionalText(email) || !optionalText(search)) {
      return { users: [], nextCursor: null };
    }
    const params: unknown[] = [scope.projectId, scope.environment];
    const conditions = ['project_id = $1', 'environment = $2'];
    if (email !== undefined) conditions.push(`email = $${params.push(email)}`);
    if (search !== undefined) conditions.push(likeCondition('email', params.push(containsPattern(search))));
    if (cursor !== undefined) conditions.push(`id > $${params.push(cursor)}`);
    params.push(limit + 1);
    const rows = await this.db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE ${conditions.join(' AND ')} ORDER BY id LIMIT $${params.length}`, params);
    const users = rows.slice(0, limit).map(toUser);
    return { users, nextCursor: rows.length > limit ? users[users.length - 1].id : null };
  }

  async count(scope: TenantScope, filter: { search?: string } = {}): Promise<number> {
    if (!isScope(scope) || !optionalText(filter.search)) return 0;
    const params: unknown[] = [scope.projectId, scope.environment];
    const conditions = ['project_id = $1', 'environment = $2'];
    if (filter.search !== undefined) conditions.push(likeCondition('email', params.push(containsPattern(filter.search))));
    const [row] = await this.db.query(`SELECT count(*) AS n FROM users WHERE ${conditions.join(' AND ')}`, params);
    return readCount(row.n);
  }
}

/** Absent, or text a database can hold (a NUL or lone surrogate matches nothing). */
function optionalText(value: unknown): boolean {
  return value === undefined || isText(value);
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    role: row.role,
    meta: readJson<Record<string, unknown>>(row.meta),
    emailVerified: readBoolean(row.email_verified),
    bannedAt: readNullableDate(row.banned_at),
    createdAt: readDate(row.created_at),
    lastLoginAt: readNullableDate(row.last_login_at),
  };
}
