import { AuthError } from '../../errors';
import type { Environment, TenantScope } from '../../domain/environment';
import { DEFAULT_OAUTH_SCOPES, isOAuthProvider, isOpenIdProvider, OAUTH_PROVIDERS, oauthSecretContext, type OAuthProvider, type OAuthProviderConfig } from '../../domain/oauth';
import { appUrlMessage, isAppUrl, matchRedirectUrl } from '../../domain/redirect-url';
import type { AuthDeps } from '../deps';
import { getProject } from '../admin/update-project';

/** Body of `PUT /admin/projects/{id}/oauth-providers/{provider}` (the OpenAPI document). */
export interface OAuthProviderInput {
  /** The environment the settings apply to; each environment is configured on its own. */
  environment: Environment;
  enabled: boolean;
  clientId: string;
  /** Required the first time; left out on a later PUT, the stored secret is kept. */
  clientSecret?: string;
  scopes?: string[];
  redirectUrl?: string | null;
  issuer?: string | null;
  authorizationUrl?: string | null;
  tokenUrl?: string | null;
  userInfoUrl?: string | null;
}

const ENDPOINT_FIELDS = ['issuer', 'authorizationUrl', 'tokenUrl', 'userInfoUrl'] as const;
type Deps = Pick<AuthDeps, 'clock' | 'projects' | 'secretBox' | 'oauthProviders'>;

/** Creates or replaces one provider's settings in one environment; the client secret is sealed at rest. */
export async function configureOAuthProvider(deps: Deps, projectId: string, provider: string, input: OAuthProviderInput): Promise<OAuthProviderConfig> {
  const { project, scope, slug } = await resolveTarget(deps, projectId, provider, input.environment);
  if (input.redirectUrl && !matchRedirectUrl(project.redirectUrls, input.redirectUrl)) {
    throw new AuthError('validation_error', "redirectUrl must exactly match one of the project's redirectUrls.");
  }
  const scopes = input.scopes?.length ? input.scopes : [...DEFAULT_OAUTH_SCOPES[slug]];
  assertEndpoints(slug, input, scopes);
  const existing = await deps.oauthProviders.find(scope, slug);
  if (input.clientSecret === undefined && !existing) throw new AuthError('validation_error', 'clientSecret is required.');
  const now = deps.clock.now();
  const sealedClientSecret = input.clientSecret === undefined ? existing!.sealedClientSecret : deps.secretBox.seal(input.clientSecret, oauthSecretContext(scope, slug));
  const config: OAuthProviderConfig = {
    provider: slug,
    enabled: input.enabled,
    clientId: input.clientId,
    sealedClientSecret,
    scopes,
    redirectUrl: input.redirectUrl ?? null,
    issuer: input.issuer ?? null,
    authorizationUrl: input.authorizationUrl ?? null,
    tokenUrl: input.tokenUrl ?? null,
    userInfoUrl: input.userInfoUrl ?? null,
    createdAt: existing?.createdAt ?? now,
    updatedAt: now,
  };
  await deps.oauthProviders.save(scope, config);
  return config;
}

/** The providers configured in one environment of the project. */
export async function listOAuthProviders(deps: Deps, projectId: string, environment: Environment): Promise<OAuthProviderConfig[]> {
  const project = await getProject(deps, projectId);
  return deps.oauthProviders.list({ projectId: project.id, environment });
}

/** Removes one provider's settings; `404 not_found` when there were none. */
export async function removeOAuthProvider(deps: Deps, projectId: string, provider: string, environment: Environment): Promise<void> {
  const { scope, slug } = await resolveTarget(deps, projectId, provider, environment);
  if (!(await deps.oauthProviders.remove(scope, slug))) throw new AuthError('not_found', 'This provider is not configured.');
}

async function resolveTarget(deps: Deps, projectId: string, provider: string, environment: Environment) {
  const project = await getProject(deps, projectId);
  if (!isOAuthProvider(provider)) {
    throw new AuthError('validation_error', `provider must be one of ${OAUTH_PROVIDERS.join(', ')}.`);
  }
  const scope: TenantScope = { projectId: project.id, environment };
  return { project, scope, slug: provider };
}

/** Settings that could never work are refused when they are set, not at a user's sign-in. */
function assertEndpoints(provider: OAuthProvider, input: OAuthProviderInput, scopes: string[]): void {
  for (const field of ENDPOINT_FIELDS) {
    const value = input[field];
    if (value && !isAppUrl(value)) throw new AuthError('validation_error', appUrlMessage(field));
  }
  if (provider === 'oidc' && !input.issuer) throw new AuthError('validation_error', 'issuer is required for the oidc provider.');
  if (isOpenIdProvider(provider) && !scopes.includes('openid')) {
    throw new AuthError('validation_error', 'scopes must include openid for an OpenID provider.');
  }
}
