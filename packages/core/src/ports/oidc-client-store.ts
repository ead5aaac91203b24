import type { Environment, TenantScope } from '../domain/environment';
import type { OidcClient } from '../domain/oidc';

/**
 * Relying parties of the hosted OIDC provider. A project has one issuer for both environments, so
 * the provider looks a client up by project and client id alone and reads the environment from the
 * record; every method is still bounded by the project, and clients of other projects are never
 * found, listed or removed.
 */
export interface OidcClientStore {
  /** Stores a new client under `scope` (its project and environment). A duplicate client id throws. */
  create(scope: TenantScope, client: OidcClient): Promise<void>;
  /** The project's client with this id (either environment), or null. */
  find(projectId: string, clientId: string): Promise<OidcClient | null>;
  /** The project's clients, oldest first; only one environment's when `environment` is given. */
  listForProject(projectId: string, environment?: Environment): Promise<OidcClient[]>;
  /** Deletes the client. False when the project has no such client. */
  remove(projectId: string, clientId: string): Promise<boolean>;
}
