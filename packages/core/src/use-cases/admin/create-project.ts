import { ENVIRONMENTS, type Environment } from '../../domain/environment';
import { DEFAULT_RECENT_SIGN_IN_SECONDS, DEFAULT_SECURITY_SETTINGS, DEFAULT_TOKEN_LIFETIMES, type Project, type ProjectSettings } from '../../domain/project';
import type { AuthDeps, OptionalDeps } from '../deps';
import { assertProjectSettings } from './update-project';
import { createApiKey } from './create-api-key';
import { rotateSigningKey } from './rotate-signing-key';

export interface CreatedProject {
  project: Project;
  apiKeys: Record<Environment, string>;
  publicKeys: Record<Environment, string>;
}

/** Creates a project with one API key and one signing key per environment (the OpenAPI document). */
export async function createProject(
  deps: Pick<AuthDeps, 'clock' | 'random' | 'projects' | 'apiKeys' | 'signingKeys' | 'keyFactory'> & OptionalDeps<'commonPasswords' | 'outbox'>,
  settings: ProjectSettings & { name: string },
): Promise<CreatedProject> {
  assertProjectSettings(deps, settings, { creating: true });
  const now = deps.clock.now();
  const project: Project = {
    id: deps.random.uuid(),
    name: settings.name.trim(),
    plan: settings.plan ?? 'FREE',
    allowedOrigins: settings.allowedOrigins ?? [],
    defaultMeta: settings.defaultMeta ?? {},
    redirectUrls: settings.redirectUrls ?? [],
    magicLinkUrl: settings.magicLinkUrl ?? null,
    passwordResetUrl: settings.passwordResetUrl ?? null,
    oidcLoginUrl: settings.oidcLoginUrl ?? null,
    userLimit: settings.userLimit ?? null,
    webauthn: settings.webauthn ?? null,
    emailTemplates: settings.emailTemplates ?? null,
    accessTokenTtlSeconds: settings.accessTokenTtlSeconds ?? DEFAULT_TOKEN_LIFETIMES.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: settings.refreshTokenTtlSeconds ?? DEFAULT_TOKEN_LIFETIMES.refreshTokenTtlSeconds,
    refreshReuseGraceSeconds: settings.refreshReuseGraceSeconds ?? DEFAULT_TOKEN_LIFETIMES.refreshReuseGraceSeconds,
    absoluteSessionLifetimeSeconds: settings.absoluteSessionLifetimeSeconds ?? DEFAULT_TOKEN_LIFETIMES.absoluteSessionLifetimeSeconds,
    rejectCommonPasswords: settings.rejectCommonPasswords ?? false,
    rateLimits: settings.rateLimits ?? null,
    auditRetentionDays: settings.auditRetentionDays ?? DEFAULT_SECURITY_SETTINGS.auditRetentionDays,
    refreshReuseResponse: settings.refreshReuseResponse ?? DEFAULT_SECURITY_SETTINGS.refreshReuseResponse,
    refreshReuseNotice: settings.refreshReuseNotice ?? DEFAULT_SECURITY_SETTINGS.refreshReuseNotice,
    recentSignInSeconds: settings.recentSignInSeconds ?? DEFAULT_RECENT_SIGN_IN_SECONDS,
    emailVerification: settings.emailVerification ?? 'off',
    emailVerificationUrl: settings.emailVerificationUrl ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.projects.create(project);
  const apiKeys = {} as Record<Environment, string>;
  const publicKeys = {} as Record<Environment, string>;
  for (const environment of ENVIRONMENTS) {
    apiKeys[environment] = (await createApiKey(deps, project.id, environment)).key;
    publicKeys[environment] = (await rotateSigningKey(deps, { projectId: project.id, environment })).publicKey;
  }
  return { project, apiKeys, publicKeys };
}
