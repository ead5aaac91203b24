import type { Environment, OidcClient } from '@svc/core';
import type { ClientMetadata } from 'oidc-provider';

/** Custom client metadata that carries the client's environment into the provider. */
export const ENVIRONMENT_METADATA = 'svc_environment';

/**
 * A registered client as oidc-provider reads it. Confidential clients authenticate with
 * client_secret_basic or _post (the provider accepts either for this method); their
 * `client_secret` here is the stored SHA-256, and the provider's compareClientSecret is replaced
 * to hash what the client presents (see project-issuer.ts), so no usable secret sits in the
 * database or in memory. Public clients use `none` and must use PKCE. HS* algorithms, which would
 * key on the secret, are switched off, so the hash is never used as a key.
 */
export function clientMetadataOf(client: OidcClient): ClientMetadata {
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...(client.secretHash ? { client_secret: client.secretHash } : {}),
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: client.public ? 'none' : 'client_secret_basic',
    id_token_signed_response_alg: 'RS256',
    [ENVIRONMENT_METADATA]: client.environment,
  };
}

/** The environment of a client the provider loaded (docs/decisions.md#contract-clarifications: a flow's environment is its client's). */
export function environmentOfClient(client: unknown): Environment {
  // oidc-provider camelCases the metadata it knows and keeps extra properties as they are.
  const environment = (client as Record<string, unknown> | undefined)?.[ENVIRONMENT_METADATA];
  if (environment !== 'production' && environment !== 'sandbox') throw new Error('OIDC client without an environment');
  return environment;
}
