import type { OidcArtifactStore } from '../../ports/oidc-artifact-store';
import type { OidcClientStore } from '../../ports/oidc-client-store';
import type { OidcInteractionGateway } from '../../ports/oidc-interactions';
import type { AuthDeps, OptionalDeps } from '../deps';

/**
 * What the hosted OIDC provider's use cases need (docs/decisions.md#hosted-oidc-provider). Kept beside AuthDeps rather than in
 * it: the provider is a Pro feature with its own adapter, and hosts without it build nothing extra.
 */
export interface OidcDeps extends Pick<AuthDeps, 'clock' | 'random' | 'projects' | 'users' | 'oneTimeTokens' | 'events'>, OptionalDeps<'unitOfWork'> {
  oidcClients: OidcClientStore;
  oidcArtifacts: OidcArtifactStore;
  /** The running provider's interactions; see OidcInteractionGateway. */
  oidcInteractions: OidcInteractionGateway;
}
