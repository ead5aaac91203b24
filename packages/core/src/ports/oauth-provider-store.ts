import type { TenantScope } from '../domain/environment';
import type { OAuthProvider, OAuthProviderConfig } from '../domain/oauth';

/** Per-project, per-environment settings of the identity providers (docs/decisions.md#social-sign-in). */
export interface OAuthProviderStore {
  /**
   * Creates the provider's settings in the scope, or replaces them; on a replace the stored
   * `createdAt` is kept. One row per (scope, provider).
   */
  save(scope: TenantScope, config: OAuthProviderConfig): Promise<void>;
  /** The provider's settings in the scope, or null when it was never configured there. */
  find(scope: TenantScope, provider: OAuthProvider): Promise<OAuthProviderConfig | null>;
  /** Every configured provider of the scope, ordered by provider slug. */
  list(scope: TenantScope): Promise<OAuthProviderConfig[]>;
  /** Deletes the provider's settings; false when there were none in the scope. */
  remove(scope: TenantScope, provider: OAuthProvider): Promise<boolean>;
}
