import type { TenantScope } from '../domain/environment';
import type { User, UserProfileChanges } from '../domain/user';

export type CreateUserResult = { status: 'created' } | { status: 'exists' } | { status: 'limit_reached' };

export interface UserPage {
  users: User[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface UserListQuery {
  email?: string;
  search?: string;
  limit: number;
  cursor?: string;
}

export interface UserRepository {
  /**
   * Inserts the user unless the scope already has that (normalised) e-mail or already holds
   * `limit` users. The count and the insert are one atomic step: of N concurrent calls at
   * `limit - 1` users exactly one is `created`. `limit: null` means no limit.
   */
  createWithinLimit(scope: TenantScope, user: User, options: { limit: number | null }): Promise<CreateUserResult>;
  /** The user with this normalised e-mail in the scope, or null. */
  findByEmail(scope: TenantScope, email: string): Promise<User | null>;
  /** The user with this id in the scope, or null (ids of other scopes are never found). */
  findById(scope: TenantScope, id: string): Promise<User | null>;
  /** Sets lastLoginAt. */
  recordLogin(scope: TenantScope, id: string, at: Date): Promise<void>;
  /** Replaces the password hash (a reset). False when the user does not exist in the scope. */
  setPassword(scope: TenantScope, id: string, passwordHash: string): Promise<boolean>;
  /** Removes the password (the user keeps only passwordless sign-in). False when the user does not exist in the scope. */
  clearPassword(scope: TenantScope, id: string): Promise<boolean>;
  /**
   * Gives the user the (normalised) address `email`, verified: the holder of its mailbox just
   * proved it. `exists` when another user of the scope holds it (also when one took it
   * concurrently: the unique address decides), `not_found` when the user does not exist.
   */
  changeEmail(scope: TenantScope, id: string, email: string): Promise<'changed' | 'exists' | 'not_found'>;
  /** Marks the e-mail address as verified (idempotent). False when the user does not exist in the scope. */
  markEmailVerified(scope: TenantScope, id: string): Promise<boolean>;
  /** Sets or clears the ban. False when the user does not exist in the scope. */
  setBanned(scope: TenantScope, id: string, bannedAt: Date | null): Promise<boolean>;
  /** Deletes the user. False when the user does not exist in the scope. */
  delete(scope: TenantScope, id: string): Promise<boolean>;
  /**
   * Applies the changes (undefined fields untouched) and answers the updated user, or null when
   * the user does not exist in the scope.
   */
  updateProfile(scope: TenantScope, id: string, changes: UserProfileChanges): Promise<User | null>;
  /**
   * Users ordered by id after `cursor` (keyset paging), `limit` per page: optionally only the one
   * with `email`, or only those whose e-mail contains `search` (already lower-cased; `%`, `_` and
   * `\` in it are literal characters, never wildcards).
   */
  list(scope: TenantScope, query: UserListQuery): Promise<UserPage>;
  /** Number of users in the scope; with `search`, of those whose e-mail contains it (as in `list`). */
  count(scope: TenantScope, filter?: { search?: string }): Promise<number>;
}
