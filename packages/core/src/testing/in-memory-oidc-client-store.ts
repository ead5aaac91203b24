import type { Environment, TenantScope } from '../domain/environment';
import type { OidcClient } from '../domain/oidc';
import type { OidcClientStore } from '../ports/oidc-client-store';

/** Reference OidcClientStore in process memory. */
export class InMemoryOidcClientStore implements OidcClientStore {
  private readonly clients = new Map<string, OidcClient>();

  async create(scope: TenantScope, client: OidcClient): Promise<void> {
    if (this.clients.has(client.clientId)) throw new Error('duplicate OIDC client id');
    this.clients.set(client.clientId, structuredClone({ ...client, ...scope }));
  }

  async find(projectId: string, clientId: string): Promise<OidcClient | null> {
    const client = this.clients.get(clientId);
    return client && client.projectId === projectId ? structuredClone(client) : null;
  }

  async listForProject(projectId: string, environment?: Environment): Promise<OidcClient[]> {
    return [...this.clients.values()]
      .filter((c) => c.projectId === projectId && (environment === undefined || c.environment === environment))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.clientId.localeCompare(b.clientId))
      .map((c) => structuredClone(c));
  }

  async remove(projectId: string, clientId: string): Promise<boolean> {
    const client = this.clients.get(clientId);
    if (!client || client.projectId !== projectId) return false;
    return this.clients.delete(clientId);
  }
}
