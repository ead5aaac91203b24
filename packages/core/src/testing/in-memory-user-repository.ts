import type { TenantScope } from '../domain/environment';
import type { User, UserProfileChanges } from '../domain/user';
import type { CreateUserResult, UserListQuery, UserPage, UserRepository } from '../ports/user-repository';

const scopeKey = (scope: TenantScope) => `${scope.projectId}\u0000${scope.environment}`;

/**
 * Reference UserRepository kept in process memory. createWithinLimit has no await between its
 * count and its insert, which is what makes it atomic on a single-threaded event loop.
 */
export class InMemoryUserRepository implements UserRepository {
  private readonly scopes = new Map<string, Map<string, User>>();

  private usersOf(scope: TenantScope): Map<string, User> {
    let users = this.scopes.get(scopeKey(scope));
    if (!users) this.scopes.set(scopeKey(scope), (users = new Map()));
    return users;
  }

  async createWithinLimit(scope: TenantScope, user: User, options: { limit: number | null }): Promise<CreateUserResult> {
    const users = this.usersOf(scope);
    if ([...users.values()].some((u) => u.email === user.email)) return { status: 'exists' };
    if (options.limit !== null && users.size >= options.limit) return { status: 'limit_reached' };
    users.set(user.id, structuredClone(user));
    return { status: 'created' };
  }

  async findByEmail(scope: TenantScope, email: string): Promise<User | null> {
    const user = [...this.usersOf(scope).values()].find((u) => u.email === email);
    return user ? structuredClone(user) : null;
  }

  async findById(scope: TenantScope, id: string): Promise<User | null> {
    const user = this.usersOf(scope).get(id);
    return user ? structuredClone(user) : null;
  }

  async recordLogin(scope: TenantScope, id: string, at: Date): Promise<void> {
    const user = this.usersOf(scope).get(id);
    if (user) user.lastLoginAt = at;
  }

  async setPassword(scope: TenantScope, id: string, passwordHash: string): Promise<boolean> {
    const user = this.usersOf(scope).get(id);
    if (!user) return false;
    user.passwordHash = passwordHash;
    return true;
  }

  async clearPassword(scope: TenantScope, id: string): Promise<boolean> {
    const user = this.usersOf(scope).get(id);
    if (!user) return false;
    user.passwordHash = null;
    return true;
  }

  async changeEmail(scope: TenantScope, id: string, email: string): Promise<'changed' | 'exists' | 'not_found'> {
    const users = this.usersOf(scope);
    const user = users.get(id);
    if (!user) return 'not_found';
    if ([...users.values()].some((u) => u.email === email && u.id !== id)) return 'exists';
    user.email = email;
    user.emailVerified = true;
    return 'changed';
  }

  async markEmailVerified(scope: TenantScope, id: string): Promise<boolean> {
    const user = this.usersOf(scope).get(id);
    if (!user) return false;
    user.emailVerified = true;
    return true;
  }

  async setBanned(scope: TenantScope, id: string, bannedAt: Date | null): Promise<boolean> {
    const user = this.usersOf(scope).get(id);
    if (!user) return false;
    user.bannedAt = bannedAt;
    return true;
  }

  async delete(scope: TenantScope, id: string): Promise<boolean> {
    return this.usersOf(scope).delete(id);
  }

  async updateProfile(scope: TenantScope, id: string, changes: UserProfileChanges): Promise<User | null> {
    const user = this.usersOf(scope).get(id);
    if (!user) return null;
    if (changes.role !== undefined) user.role = changes.role;
    if (changes.meta !== undefined) user.meta = structuredClone(changes.meta);
    if (changes.emailVerified !== undefined) user.emailVerified = changes.emailVerified;
    return structuredClone(user);
  }

  async list(scope: TenantScope, query: UserListQuery): Promise<UserPage> {
    const { email, search, limit, cursor } = query;
    const matching = [...this.usersOf(scope).values()]
      .filter((u) => (email === undefined || u.email === email) && matchesSearch(u, search) && (cursor === undefined || u.id > cursor))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const users = matching.slice(0, limit).map((u) => structuredClone(u));
    const nextCursor = matching.length > limit ? users[users.length - 1].id : null;
    return { users, nextCursor };
  }

  forgetProject(projectId: string): void {
    for (const environment of ['production', 'sandbox'] as const) this.scopes.delete(scopeKey({ projectId, environment }));
  }

  async count(scope: TenantScope, filter: { search?: string } = {}): Promise<number> {
    return [...this.usersOf(scope).values()].filter((u) => matchesSearch(u, filter.search)).length;
  }
}

const matchesSearch = (user: User, search: string | undefined) => search === undefined || user.email.toLowerCase().includes(search);
