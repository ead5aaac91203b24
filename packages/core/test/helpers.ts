import { createAuthService, type AuthService } from '../src/create-auth-service';
import type { ProjectSettings } from '../src/domain/project';
import { createInMemoryDeps } from '../src/testing/in-memory-deps';
import type { AuthDeps } from '../src/use-cases/deps';
import type { ResolvedApiKey } from '../src/use-cases/resolve-api-key';

/** A service on in-memory fakes with one project, resolved for both environments. */
export async function serviceWithProject(settings: ProjectSettings = {}, overrides: Partial<AuthDeps> = {}) {
  const deps = createInMemoryDeps(overrides);
  const service: AuthService = createAuthService(deps);
  const created = await service.admin.createProject({ name: 'Test', ...settings });
  const production: ResolvedApiKey = await service.resolveApiKey(created.apiKeys.production);
  const sandbox: ResolvedApiKey = await service.resolveApiKey(created.apiKeys.sandbox);
  return { deps, service, created, production, sandbox };
}

export const PASSWORD = 'correct horse battery';
