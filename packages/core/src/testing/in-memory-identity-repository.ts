import type { TenantScope } from '../domain/environment';
import { compareIdentities, type OAuthIdentity, type OAuthProvider } from '../domain/oauth';
import type { IdentityRepository } from '../ports/identity-repository';

const keyOf = (scope: TenantScope, provider: OAuthProvider, subject: string) => JSON.stringify([scope.projectId, scope.environment, provider, subject]);

/**
 * Reference IdentityRepository kept in process memory. `link` has no await between its check and
 * its insert, which makes it atomic on the event loop. It cannot see users, so links of deleted
 * users linger; core drops such a link when it meets one.
 */
export class InMemoryIdentityRepository implements IdentityRepository {
  private readonly identities = new Map<string, { scope: TenantScope; identity: OAuthIdentity }>();

  async link(scope: TenantScope, identity: OAuthIdentity): Promise<'created' | 'exists'> {
    const key = keyOf(scope, identity.provider, identity.subject);
    if (this.identities.has(key)) return 'exists';
    this.identities.set(key, { scope: { ...scope }, identity: structuredClone(identity) });
    return 'created';
  }

  async find(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<OAuthIdentity | null> {
    const entry = this.identities.get(keyOf(scope, provider, subject));
    return entry ? structuredClone(entry.identity) : null;
  }

  async listForUser(scope: TenantScope, userId: string): Promise<OAuthIdentity[]> {
    return [...this.identities.values()]
      .filter((e) => e.scope.projectId === scope.projectId && e.scope.environment === scope.environment && e.identity.userId === userId)
      .map((e) => structuredClone(e.identity))
      .sort(compareIdentities);
  }

  async unlink(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<boolean> {
    return this.identities.delete(keyOf(scope, provider, subject));
  }
}
