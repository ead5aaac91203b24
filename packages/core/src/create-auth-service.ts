import type { Environment, TenantScope } from './domain/environment';
import type { ProjectSettings } from './domain/project';
import { poweredByService } from './domain/project';
import type { AuthDeps } from './use-cases/deps';
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
import { verifyAccessToken } from './use-cases/verify-access-token';
import { secondFactorService } from './second-factor-service';
import { emailAdminService, emailService } from './email-service';
import { oauthAdminService, oauthService } from './oauth-service';

/**
 * The whole service behind one object: pass in adapters, call use cases. This is what an HTTP
 * layer (ours in apps/api, or anyone's) needs; nothing here knows about transport.
 */
export function createAuthService(deps: AuthDeps, options: { apiKeyCacheSeconds?: number } = {}) {
  const resolveKey = createApiKeyResolver(deps, { ttlSeconds: options.apiKeyCacheSeconds });
  return {
    deps,
    resolveApiKey: resolveKey,
    signUp: (key: ResolvedApiKey, input: SignUpInput) => signUp(deps, key.scope, key.project, input),
    logIn: (key: ResolvedApiKey, input: LogInInput, options?: LogInOptions) => logIn(deps, key.scope, key.project, input, options),
    logOut: (key: ResolvedApiKey, refreshToken: string) => logOut(deps, key.scope, refreshToken),
    refresh: (key: ResolvedApiKey, refreshToken: string) => refreshTokens(deps, key.scope, key.project, refreshToken),
    getMe: (key: ResolvedApiKey, accessToken: string) => getMe(deps, key.scope, accessToken),
    verifyAccessToken: (scope: TenantScope, token: string) => verifyAccessToken(deps, scope, token),
    branding: (key: ResolvedApiKey) => ({ poweredByService: poweredByService(key.project.plan) }),
    jwks: (scope: TenantScope) => publishedJwks(deps, scope),
    ...secondFactorService(deps),
    ...emailService(deps),
    ...oauthService(deps),
    admin: {
      createProject: (settings: ProjectSettings & { name: string }) => createProject(deps, settings),
      getProject: (projectId: string) => getProject(deps, projectId),
      updateProject: (projectId: string, settings: ProjectSettings) => updateProject(deps, projectId, settings),
      createApiKey: (projectId: string, environment: Environment) => createApiKey(deps, projectId, environment),
      revokeApiKey: (projectId: string, keyId: string) => revokeApiKey(deps, projectId, keyId),
      listApiKeys: (projectId: string) => deps.apiKeys.listForProject(projectId),
      rotateSigningKey: (scope: TenantScope) => rotateSigningKey(deps, scope),
      currentPublicKey: (scope: TenantScope) => currentPublicKey(deps, scope),
      listUsers: (scope: TenantScope, query: { email?: string; limit?: number; cursor?: string }) =>
        listUsers(deps, scope, query),
      banUser: (scope: TenantScope, userId: string) => banUser(deps, scope, userId),
      unbanUser: (scope: TenantScope, userId: string) => unbanUser(deps, scope, userId),
      deleteUser: (scope: TenantScope, userId: string) => deleteUser(deps, scope, userId),
      /** Housekeeping over every tenant (the janitor, `svc purge`). */
      purgeExpired: (options?: PurgeOptions) => purgeExpired(deps, options),
      ...emailAdminService(deps),
      ...oauthAdminService(deps),
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
