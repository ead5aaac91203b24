import type { Environment, TenantScope } from './domain/environment';
import type { ProjectSettings } from './domain/project';
import { poweredByService } from './domain/project';
import { assertWholeCapabilities, hasCapability, type AuthDeps, type AuthServiceDeps, type CapabilityDeps, type OptionalDeps } from './use-cases/deps';
import { activityStats } from './use-cases/admin/activity-stats';
import { createApiKey, revokeApiKey } from './use-cases/admin/create-api-key';
import { createProject } from './use-cases/admin/create-project';
import { banUser, createUser, deleteUser, listUsers, unbanUser, updateUser, type CreateUserInput, type ListUsersQuery } from './use-cases/admin/manage-users';
import { deleteProject, listProjects } from './use-cases/admin/manage-projects';
import { getUserDetail, revokeAllUserSessions, revokeUserSession } from './use-cases/admin/user-detail';
import type { Project } from './domain/project';
import type { UserProfileChanges } from './domain/user';
import { currentPublicKey, publishedJwks, rotateSigningKey } from './use-cases/admin/rotate-signing-key';
import { getProject, updateProject } from './use-cases/admin/update-project';
import { getMe } from './use-cases/get-me';
import { logIn, type LogInInput, type LogInOptions } from './use-cases/log-in';
import { logOut } from './use-cases/log-out';
import { purgeExpired, type PurgeOptions } from './use-cases/purge-expired';
import { refreshTokens, type RefreshOptions } from './use-cases/refresh-tokens';
import { createApiKeyResolver, type ResolvedApiKey } from './use-cases/resolve-api-key';
import { signUp, type SignUpInput } from './use-cases/sign-up';
import type { SignInOptions } from './use-cases/complete-first-factor';
import { verifyAccessToken } from './use-cases/verify-access-token';
import { passkeyService, totpService } from './second-factor-service';
import { emailAdminService, emailService } from './email-service';
import { oauthAdminService, oauthService } from './oauth-service';
import { LocalChangeFeed } from './changes/local-change-feed';
import { withChangeNotices } from './changes/publishing-stores';
import { projectOfNotice, type ChangeFeed } from './ports/change-feed';
import { readAuditLog, type AuditLogPageQuery } from './use-cases/events/read-audit-log';
import { webhookAdminService } from './webhook-service';
import { accountService } from './account-service';

export interface AuthServiceOptions {
  /** Seconds an API-key resolution (with its project) is kept at most; default 10. */
  apiKeyCacheSeconds?: number;
  /**
   * Where admin changes are announced, so the service's caches (and the token codec's current
   * key) drop stale state. Given one, the caller wraps the stores it passes in with
   * `withChangeNotices` on the same feed, as the server's composition root does for every
   * instance. Without one, the service announces its own writes in this process (LocalChangeFeed).
   */
  changes?: ChangeFeed;
}

/** What every service has: password sign-up and sign-in, tokens, /me, the JWKS and the admin API. */
function coreService(deps: AuthServiceDeps, options: AuthServiceOptions) {
  const resolveKey = createApiKeyResolver(deps, { ttlSeconds: options.apiKeyCacheSeconds, changes: options.changes });
  return {
    resolveApiKey: resolveKey,
    signUp: (key: ResolvedApiKey, input: SignUpInput, options?: SignInOptions) => signUp(deps, key.scope, key.project, input, options),
    logIn: (key: ResolvedApiKey, input: LogInInput, options?: LogInOptions) => logIn(deps, key.scope, key.project, input, options),
    logOut: (key: ResolvedApiKey, refreshToken: string) => logOut(deps, key.scope, refreshToken),
    refresh: (key: ResolvedApiKey, refreshToken: string, options?: RefreshOptions) => refreshTokens(deps, key.scope, key.project, refreshToken, options),
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
    listProjects: (query: { q?: string; limit?: number; cursor?: string }) => listProjects(deps, query),
    deleteProject: (projectId: string) => deleteProject(deps, projectId),
    listUsers: (scope: TenantScope, query: ListUsersQuery) => listUsers(deps, scope, query),
    getUser: (scope: TenantScope, userId: string) => getUserDetail(deps, scope, userId),
    createUser: (scope: TenantScope, project: Project, input: CreateUserInput) => createUser(deps, scope, project, input),
    updateUser: (scope: TenantScope, userId: string, changes: UserProfileChanges) => updateUser(deps, scope, userId, changes),
    revokeUserSession: (scope: TenantScope, userId: string, sessionId: string) => revokeUserSession(deps, scope, userId, sessionId),
    revokeAllUserSessions: (scope: TenantScope, userId: string) => revokeAllUserSessions(deps, scope, userId),
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
      With<D, 'oauth', ReturnType<typeof oauthAdminService>> &
      With<D, 'audit', ReturnType<typeof auditAdminService>> &
      With<D, 'webhooks', ReturnType<typeof webhookAdminService>>;
  };

/** The audit log's reading side (its writing side is the `events` sink), and the figures counted from it. */
function auditAdminService(deps: CapabilityDeps<'audit'> & Pick<AuthDeps, 'clock'> & OptionalDeps<'rateLimitStats'>) {
  return {
    auditLog: (scope: TenantScope, query: AuditLogPageQuery) => readAuditLog(deps, scope, query),
    activityStats: (scope: TenantScope, query: { days?: number }) => activityStats(deps, scope, query),
  };
}

/**
 * The whole service behind one object: pass in adapters, call use cases. This is what an HTTP
 * layer (ours in apps/api, or anyone's) needs; nothing here knows about transport. Give the core
 * parts and the parts of the capabilities you want; a capability given in part is refused.
 */
export function createAuthService<D extends AuthServiceDeps>(given: D, options: AuthServiceOptions = {}): AuthService<D> {
  assertWholeCapabilities(given);
  const changes = options.changes ?? new LocalChangeFeed();
  const deps = options.changes ? given : withChangeNotices(given, changes);
  changes.subscribe((notice) => {
    if (notice.kind === 'signing-keys' || notice.kind === 'everything') deps.tokens.forgetCurrentKeys?.(projectOfNotice(notice));
  });
  const service: Record<string, unknown> = { ...coreService(deps, { ...options, changes }), ...accountService(deps) };
  const admin: Record<string, unknown> = coreAdminService(deps);
  if (hasCapability(deps, 'totp')) Object.assign(service, totpService(deps));
  if (hasCapability(deps, 'passkeys')) Object.assign(service, passkeyService(deps));
  if (hasCapability(deps, 'mail')) {
    Object.assign(service, emailService(deps, changes));
    Object.assign(admin, emailAdminService(deps));
  }
  if (hasCapability(deps, 'oauth')) {
    Object.assign(service, oauthService(deps));
    Object.assign(admin, oauthAdminService(deps));
  }
  if (hasCapability(deps, 'audit')) Object.assign(admin, auditAdminService(deps));
  if (hasCapability(deps, 'webhooks')) Object.assign(admin, webhookAdminService(deps));
  // The conditional type above mirrors these checks, which TypeScript cannot follow through Object.assign.
  return { ...service, admin } as AuthService<D>;
}
