import { AuthError } from '../../errors';
import { normalizeSearchText, pageSize, searchTextProblem, MAX_PAGE_SIZE } from '../../domain/admin-queries';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { newUser, normalizeEmail, userMetaProblem, userRoleProblem, type User, type UserMeta, type UserProfileChanges } from '../../domain/user';
import type { UserPage } from '../../ports/user-repository';
import { acceptNewPassword } from '../accept-new-password';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import { userLimitFor } from '../sign-up';

export const MAX_USER_PAGE = MAX_PAGE_SIZE;

export interface ListUsersQuery {
  /** Exactly this address. */
  email?: string;
  /** Part of the address, any case. */
  q?: string;
  limit?: number;
  cursor?: string;
}

/** A page of users, with how many match the whole query (every page, not just this one). */
export async function listUsers(deps: Pick<AuthDeps, 'users'>, scope: TenantScope, query: ListUsersQuery): Promise<UserPage & { total: number }> {
  const email = query.email === undefined ? undefined : normalizeEmail(query.email);
  const search = query.q === undefined ? undefined : checkedSearch(query.q, 'q');
  const listed = deps.users.list(scope, { email, search, limit: pageSize(query.limit), cursor: query.cursor });
  // An address is unique in its scope: the first page already holds every match.
  if (email !== undefined && query.cursor === undefined) return listed.then((page) => ({ ...page, total: page.users.length }));
  const [page, total] = await Promise.all([listed, email === undefined ? deps.users.count(scope, { search }) : countOne(deps, scope, email, search)]);
  return { ...page, total };
}

async function countOne(deps: Pick<AuthDeps, 'users'>, scope: TenantScope, email: string, search: string | undefined): Promise<number> {
  const user = await deps.users.findByEmail(scope, email);
  return user && (search === undefined || user.email.includes(search)) ? 1 : 0;
}

/** The search text of a query (trimmed, lower-cased), or 400 validation_error. */
export function checkedSearch(text: string, field: string): string {
  const problem = searchTextProblem(text, field);
  if (problem) throw new AuthError('validation_error', problem);
  return normalizeSearchText(text);
}

export interface CreateUserInput {
  email: string;
  /** Omitted for an account that signs in without one (magic link, social sign-in, passkey). */
  password?: string;
  role?: string;
  meta?: UserMeta;
  emailVerified?: boolean;
}

/**
 * An operator's import of one account: the sign-up rules (password policy, meta, the plan's user
 * limit in Production) without signing anyone in. The project's default meta applies as at sign-up.
 */
export async function createUser(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'passwords'> & OptionalDeps<'commonPasswords' | 'events' | 'unitOfWork'>,
  scope: TenantScope,
  project: Project,
  input: CreateUserInput,
): Promise<User> {
  if (input.password !== undefined) acceptNewPassword(deps, project, input.password, 'password');
  assertProfile({ role: input.role, meta: input.meta });
  const user = newUser({
    id: deps.random.uuid(),
    email: input.email,
    passwordHash: input.password === undefined ? null : await deps.passwords.hash(input.password),
    emailVerified: input.emailVerified === true,
    defaultMeta: project.defaultMeta,
    meta: input.meta,
    createdAt: deps.clock.now(),
  });
  if (input.role !== undefined) user.role = input.role;
  // The hash is made above, outside the unit of work: its transaction stays short.
  await atomically(deps, async () => {
    const created = await deps.users.createWithinLimit(scope, user, { limit: userLimitFor(deps, scope, project) });
    if (created.status === 'limit_reached') throw new AuthError('plan_limit_reached');
    if (created.status === 'exists') throw new AuthError('user_already_exists');
    await emitEvent(deps, scope, { type: 'user.created', userId: user.id, data: { method: 'admin' } });
  });
  return user;
}

/**
 * Changes role, meta or the verified flag. The new role is in the user's next access token (at
 * sign-in or refresh); tokens already issued keep the old one until they expire.
 */
export async function updateUser(deps: Pick<AuthDeps, 'users'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string, changes: UserProfileChanges): Promise<User> {
  assertProfile(changes);
  return atomically(deps, async () => {
    const user = await deps.users.updateProfile(scope, userId, changes);
    if (!user) throw userNotFound();
    const fields = Object.keys(changes).filter((field) => changes[field as keyof UserProfileChanges] !== undefined);
    await emitEvent(deps, scope, { type: 'user.updated', userId, data: { fields } });
    return user;
  });
}

function assertProfile(changes: { role?: unknown; meta?: unknown }): void {
  const problem = (changes.role === undefined ? null : userRoleProblem(changes.role)) ?? (changes.meta === undefined ? null : userMetaProblem(changes.meta, 'meta'));
  if (problem) throw new AuthError('validation_error', problem);
}

/** Bans the user and revokes every session, so refresh fails and /me answers user_banned at once. */
export async function banUser(deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string) {
  const now = deps.clock.now();
  await atomically(deps, async () => {
    if (!(await deps.users.setBanned(scope, userId, now))) throw userNotFound();
    const count = await deps.sessions.revokeAllForUser(scope, userId, now);
    await emitEvent(deps, scope, { type: 'user.banned', userId, data: {} });
    if (count > 0) await emitEvent(deps, scope, { type: 'session.revoked', userId, data: { why: 'user_banned', count } });
  });
}

export async function unbanUser(deps: Pick<AuthDeps, 'users'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string) {
  await atomically(deps, async () => {
    if (!(await deps.users.setBanned(scope, userId, null))) throw userNotFound();
    await emitEvent(deps, scope, { type: 'user.unbanned', userId, data: {} });
  });
}

/** Deletes the user after revoking their sessions (their access tokens die at /me). */
export async function deleteUser(deps: Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, userId: string) {
  await atomically(deps, async () => {
    await deps.sessions.revokeAllForUser(scope, userId, deps.clock.now());
    if (!(await deps.users.delete(scope, userId))) throw userNotFound();
    await emitEvent(deps, scope, { type: 'user.deleted', userId, data: {} });
  });
}

export function userNotFound(): AuthError {
  return new AuthError('user_not_found');
}
