import { AuthError } from '../../errors';
import { apiKeySuffix, formatApiKey, hashApiKey } from '../../domain/api-key';
import type { Environment } from '../../domain/environment';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

/** Issues a new key; the full key is returned once and only its hash is stored. */
export async function createApiKey(
  deps: Pick<AuthDeps, 'clock' | 'random' | 'projects' | 'apiKeys'> & OptionalDeps<'events' | 'unitOfWork'>,
  projectId: string,
  environment: Environment,
): Promise<{ id: string; key: string; environment: Environment }> {
  if (!(await deps.projects.findById(projectId))) throw new AuthError('not_found', 'Project not found.');
  const key = formatApiKey(environment, deps.random.bytes(32));
  const id = deps.random.uuid();
  await atomically(deps, async () => {
    await deps.apiKeys.create({
      id,
      projectId,
      environment,
      keyHash: hashApiKey(key),
      suffix: apiKeySuffix(key),
      createdAt: deps.clock.now(),
      revokedAt: null,
    });
    await emitEvent(deps, { projectId, environment }, { type: 'api_key.created', data: { apiKeyId: id, environment } });
  });
  return { id, key, environment };
}

export async function revokeApiKey(deps: Pick<AuthDeps, 'clock' | 'apiKeys'> & OptionalDeps<'events' | 'unitOfWork'>, projectId: string, keyId: string): Promise<void> {
  await atomically(deps, async () => {
    if (!(await deps.apiKeys.revoke(projectId, keyId, deps.clock.now()))) {
      throw new AuthError('not_found', 'API key not found.');
    }
    const revoked = (await deps.apiKeys.listForProject(projectId)).find((key) => key.id === keyId);
    if (revoked) await emitEvent(deps, { projectId, environment: revoked.environment }, { type: 'api_key.revoked', data: { apiKeyId: keyId } });
  });
}
