import type { Environment, TenantScope } from './domain/environment';
import type { Project } from './domain/project';
import { deleteOidcClient, listOidcClients, registerOidcClient, type OidcClientInput } from './use-cases/oidc/oidc-clients';
import type { OidcDeps } from './use-cases/oidc/oidc-deps';
import { grantOidcRequest, type OidcGrantInput } from './use-cases/oidc/grant-oidc-request';

/**
 * The hosted OIDC provider's use cases behind one object, like createAuthService: `POST /api/auth/oidc/grant` for
 * key holders, client registration for the admin API. The provider itself (issuer endpoints) is an
 * adapter; this is what any HTTP layer calls.
 */
export function createOidcService(deps: OidcDeps) {
  return {
    deps,
    grant: (key: { scope: TenantScope; project: Project }, input: OidcGrantInput) => grantOidcRequest(deps, key, input),
    admin: {
      registerClient: (projectId: string, input: OidcClientInput) => registerOidcClient(deps, projectId, input),
      listClients: (projectId: string, environment?: Environment) => listOidcClients(deps, projectId, environment),
      deleteClient: (projectId: string, clientId: string) => deleteOidcClient(deps, projectId, clientId),
    },
  };
}

export type OidcService = ReturnType<typeof createOidcService>;
