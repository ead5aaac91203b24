import type { Environment, TenantScope } from './domain/environment';
import type { ProjectSettings } from './domain/project';
import { poweredByService } from './domain/project';
import { assertWholeCapabilities, hasCapability, type AuthDeps, type AuthServiceDeps, type CapabilityDeps } from './use-cases/deps';
import { createApiKey, revokeApiKey } from './use-cases/admin/create-api-key';
import { createProject } from './use-cases/admin/create-project';
import { banUser, deleteUser, listUsers, unbanUser } from './use-cases/admin/manage-users';
import { currentPublicKey, publishedJwks, rotateSigningKey } from './use-cases/admin/rotate-signing-key';
import { getProject, updateProject } from './use-cases/admin/update-project';
import { getMe } from './use-cases/get-me';
import { logIn, type LogInInput, type LogInOptions } from './use-cases/log-in';
import { logOut } from './use-cases/log-out';
import { purgeExpired, type PurgeOptions } from './use-cases/purge-expired';
import { refreshTokens } from './use-cases/refresh-tokens';
import { createApiKeyResolver, type ResolvedApiKey } from './use-cases/resolve-api-key';
import { signUp, type SignUpInput } from './use-cases/sign-up';
import type { SignInOptions } from './use-cases/complete-first-factor';
import { verifyAccessToken } from './use-cases/verify-access-token';
import { passkeyService, totpService } from './second-factor-service';
import { emailAdminService, emailService } from './email-service';
import { oauthAdminService, oauthService } from './oauth-service';
import { accountService } from './account-service';

export interface AuthServiceOptions {
  /** Seconds an API-key resolution (with its project) is kept; default 10. */
  apiKeyCacheSeconds?: number;
}

/** What every service has: password sign-up and sign-in, tokens, /me, the JWKS and the admin API. */
function coreService(deps: AuthServiceDeps, options: AuthServiceOptions) {
  const resolveKey = createApiKeyResolver(deps, { ttlSeconds: options.apiKeyCacheSeconds });
  return {
    resolveApiKey: resolveKey,
    signUp: (key: ResolvedApiKey, input: SignUpInput, options?: SignInOptions) => signUp(deps, key.scope, key.project, input, options),
    logIn: (key: ResolvedApiKey, input: LogInInput, options?: LogInOptions) => logIn(deps, key.scope, key.project, input, options),
    logOut: (key: ResolvedApiKey, refreshToken: string) => logOut(deps, key.scope, refreshToken),
    refresh: (key: ResolvedApiKey, refreshToken: string) => refreshTokens(deps, key.scope, key.project, refreshToken),
    getMe: (key: ResolvedApiKey, accessToken: string) => getMe(deps, key.scope, accessToken),
    verifyAccessToken: (scope: TenantScope, token: string) => verifyAccessToken(deps, scope, token),
    branding: (key: ResolvedApiKey) => ({ poweredByService: poweredByService(key.project.plan) }),
    jwks: (scope: TenantScope) => publishedJwks(deps, scope),
  };
}

function coreAdminService(deps: AuthServiceDeps) {
  return {
    createProject: (settings: ProjectSettings & { name: string }) => createProject(deps, settings),
    getProject: (projectId: string) => getProject(deps, projectId),
    updateProject: (projectId: string, settings: ProjectSettings) => updateProject(deps, projectId, settings),
    createApiKey: (projectId: string, environment: Environment) => createApiKey(deps, projectId, environment),
    revokeApiKey: (projectId: string, keyId: string) => revokeApiKey(deps, projectId, keyId),
    listApiKeys: (projectId: string) => deps.apiKeys.listForProject(projectId),
    rotateSigningKey: (scope: TenantScope) => rotateSigningKey(deps, scope),
    currentPublicKey: (scope: TenantScope) => currentPublicKey(deps, scope),
    listUsers: (scope: TenantScope, query: { email?: string; limit?: number; cursor?: string }) => listUsers(deps, scope, query),
    banUser: (scope: TenantScope, userId: string) => banUser(deps, scope, userId),
    unbanUser: (scope: TenantScope, userId: string) => unbanUser(deps, scope, userId),
    deleteUser: (scope: TenantScope, userId: string) => deleteUser(deps, scope, userId),
    /** Housekeeping over every tenant (the janitor, `svc purge`): the stores the service was given. */
    purgeExpired: (options?: PurgeOptions) => purgeExpired(deps, options),
  };
}

/** `Part` when `D` holds every part of capability `C`; nothing otherwise. */
type With<D, C extends Parameters<typeof hasCapability>[1], Part> = D extends CapabilityDeps<C> ? Part : unknown;

/**
 * The service built from `D`: the core, and each capability whose parts `D` holds (docs/architecture.md,
 * "Capabilities"). A use case of a capability left out is not there, so calling it does not compile.
 */
export type AuthService<D extends AuthServiceDeps = AuthDeps> = ReturnType<typeof coreService> &
  ReturnType<typeof accountService> &
  With<D, 'totp', ReturnType<typeof totpService>> &
  With<D, 'passkeys', ReturnType<typeof passkeyService>> &
  With<D, 'mail', ReturnType<typeof emailService>> &
  With<D, 'oauth', ReturnType<typeof oauthService>> & {
    admin: ReturnType<typeof coreAdminService> &
      With<D, 'mail', ReturnType<typeof emailAdminService>> &
      With<D, 'oauth', ReturnType<typeof oauthAdminService>>;
  };

/**
 * The whole service behind one object: pass in adapters, call use cases. This is what an HTTP
 * layer (ours in apps/api, or anyone's) needs; nothing here knows about transport. Give the core
 * parts and the parts of the capabilities you want; a capability given in part is refused.
 */
export function createAuthService<D extends AuthServiceDeps>(deps: D, options: AuthServiceOptions = {}): AuthService<D> {
  assertWholeCapabilities(deps);
  const service: Record<string, unknown> = { ...coreService(deps, options), ...accountService(deps) };
  const admin: Record<string, unknown> = coreAdminService(deps);
  if (hasCapability(deps, 'totp')) Object.assign(service, totpService(deps));
  if (hasCapability(deps, 'passkeys')) Object.assign(service, passkeyService(deps));
  if (hasCapability(deps, 'mail')) {
    Object.assign(service, emailService(deps));
    Object.assign(admin, emailAdminService(deps));
  }
  if (hasCapability(deps, 'oauth')) {
    Object.assign(service, oauthService(deps));
    Object.assign(admin, oauthAdminService(deps));
  }
  // The conditional type above mirrors these checks, which TypeScript cannot follow through Object.assign.
  return { ...service, admin } as AuthService<D>;
}
