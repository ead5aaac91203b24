import type { TenantScope } from '../domain/environment';
import type { OAuthIdentity, OAuthProvider } from '../domain/oauth';

/**
 * Provider accounts linked to users. An identity belongs to exactly one user; a user may have
 * several (one per provider account). Identities die with their user.
 */
export interface IdentityRepository {
  /**
   * Links the identity unless (scope, provider, subject) is already linked, to this or any other
   * user: then `exists` and nothing changes. Atomic: of concurrent links of one identity exactly
   * one is `created`. The user must exist in the scope.
   */
  link(scope: TenantScope, identity: OAuthIdentity): Promise<'created' | 'exists'>;
  /** The identity with this provider and subject in the scope, or null. */
  find(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<OAuthIdentity | null>;
  /** The user's identities, ordered by provider then subject. */
  listForUser(scope: TenantScope, userId: string): Promise<OAuthIdentity[]>;
  /** Removes the link; false when it did not exist in the scope. */
  unlink(scope: TenantScope, provider: OAuthProvider, subject: string): Promise<boolean>;
}
