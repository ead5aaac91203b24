import type { TenantScope } from '../domain/environment';
import type { OAuthProvider, OAuthProviderConfig } from '../domain/oauth';
import type { OAuthProviderStore } from '../ports/oauth-provider-store';

const keyOf = (scope: TenantScope, provider: OAuthProvider) => `${scope.projectId}\u0000${scope.environment}\u0000${provider}`;
const scopePrefix = (scope: TenantScope) => `${scope.projectId}\u0000${scope.environment}\u0000`;

/** Reference OAuthProviderStore kept in process memory. */
export class InMemoryOAuthProviderStore implements OAuthProviderStore {
  private readonly configs = new Map<string, OAuthProviderConfig>();

  async save(scope: TenantScope, config: OAuthProviderConfig): Promise<void> {
    const key = keyOf(scope, config.provider);
    const createdAt = this.configs.get(key)?.createdAt ?? config.createdAt;
    this.configs.set(key, structuredClone({ ...config, createdAt }));
  }

  async find(scope: TenantScope, provider: OAuthProvider): Promise<OAuthProviderConfig | null> {
    const config = this.configs.get(keyOf(scope, provider));
    return config ? structuredClone(config) : null;
  }

  async list(scope: TenantScope): Promise<OAuthProviderConfig[]> {
    return [...this.configs.entries()]
      .filter(([key]) => key.startsWith(scopePrefix(scope)))
      .map(([, config]) => structuredClone(config))
      .sort((a, b) => (a.provider < b.provider ? -1 : a.provider > b.provider ? 1 : 0));
  }

  async remove(scope: TenantScope, provider: OAuthProvider): Promise<boolean> {
    return this.configs.delete(keyOf(scope, provider));
  }
}
