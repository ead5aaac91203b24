import { AuthError } from '../../errors';
import type { Environment } from '../../domain/environment';
import type { OidcClient } from '../../domain/oidc';
import { appUrlMessage, isAppUrl } from '../../domain/redirect-url';
import { newBearerSecret, sha256Hex } from '../../domain/secrets';
import { displayNameProblem } from '../../domain/text';
import type { OidcDeps } from './oidc-deps';

/** Upper bounds that keep a client record small; a real app has a handful of URIs. */
export const MAX_OIDC_REDIRECT_URIS = 20;

export interface OidcClientInput {
  environment: Environment;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** true: a SPA or native app without a secret (PKCE required); default false (confidential). */
  public?: boolean;
}

/**
 * Registers a relying party for one environment (the OpenAPI document). A confidential client gets a
 * 256-bit secret, returned once; only its SHA-256 is stored (docs/security.md), and the provider
 * compares a presented secret by hashing it. Clients may be registered on any plan, so a project
 * can be set up before it upgrades; only Pro projects' issuers answer.
 */
export async function registerOidcClient(
  deps: Pick<OidcDeps, 'clock' | 'random' | 'projects' | 'oidcClients'>,
  projectId: string,
  input: OidcClientInput,
): Promise<{ client: OidcClient; clientSecret: string | null }> {
  if (!(await deps.projects.findById(projectId))) throw new AuthError('not_found', 'Project not found.');
  const nameProblem = displayNameProblem(input.name, 'name');
  if (nameProblem) throw new AuthError('validation_error', nameProblem);
  const name = input.name.trim();
  const redirectUris = checkedUris(input.redirectUris, 'redirectUris', { required: true });
  const postLogoutRedirectUris = checkedUris(input.postLogoutRedirectUris ?? [], 'postLogoutRedirectUris', { required: false });
  const clientSecret = input.public ? null : newBearerSecret(deps.random);
  const client: OidcClient = {
    clientId: deps.random.uuid(),
    projectId,
    environment: input.environment,
    name,
    redirectUris,
    postLogoutRedirectUris,
    public: input.public === true,
    secretHash: clientSecret === null ? null : sha256Hex(clientSecret),
    createdAt: deps.clock.now(),
  };
  await deps.oidcClients.create({ projectId, environment: input.environment }, client);
  return { client, clientSecret };
}

export async function listOidcClients(deps: Pick<OidcDeps, 'projects' | 'oidcClients'>, projectId: string, environment?: Environment): Promise<OidcClient[]> {
  if (!(await deps.projects.findById(projectId))) throw new AuthError('not_found', 'Project not found.');
  return deps.oidcClients.listForProject(projectId, environment);
}

/** Deletes the client; its tokens stop working at once, since the provider no longer finds it. */
export async function deleteOidcClient(deps: Pick<OidcDeps, 'oidcClients'>, projectId: string, clientId: string): Promise<void> {
  if (!(await deps.oidcClients.remove(projectId, clientId))) throw new AuthError('not_found', 'OIDC client not found.');
}

function checkedUris(uris: string[], field: string, options: { required: boolean }): string[] {
  const unique = [...new Set(uris)];
  if (options.required && unique.length === 0) throw new AuthError('validation_error', `${field} must hold at least one URI.`);
  if (unique.length > MAX_OIDC_REDIRECT_URIS) throw new AuthError('validation_error', `${field} may hold at most ${MAX_OIDC_REDIRECT_URIS} URIs.`);
  // A client's redirect URIs follow the rule of every URL the service sends a browser to.
  if (!unique.every(isAppUrl)) throw new AuthError('validation_error', appUrlMessage(field, { each: true }));
  return unique;
}
