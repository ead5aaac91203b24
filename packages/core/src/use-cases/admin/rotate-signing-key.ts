import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { CLOCK_LEEWAY_SECONDS } from '../../domain/tokens';
import type { PublicJwk } from '../../ports/access-token-codec';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

/** Makes a fresh key pair current; the old public key stays published (see publishedKeys). */
export async function rotateSigningKey(
  deps: Pick<AuthDeps, 'clock' | 'signingKeys' | 'keyFactory'> & OptionalDeps<'events' | 'unitOfWork'>,
  scope: TenantScope,
): Promise<{ kid: string; publicKey: string }> {
  // The key pair is generated before the unit of work: its transaction stays short.
  const key = await deps.keyFactory.generate(scope, deps.clock.now());
  await atomically(deps, async () => {
    await deps.signingKeys.rotate(scope, key);
    await emitEvent(deps, scope, { type: 'signing_key.rotated', data: { kid: key.kid } });
  });
  return { kid: key.kid, publicKey: key.publicKeyPem };
}

/**
 * Keys a verifier must still accept: the current one and every key retired less than the longest
 * access-token lifetime (plus leeway) ago, so tokens signed before a rotation verify until they expire.
 */
export async function publishedJwks(deps: Pick<AuthDeps, 'clock' | 'projects' | 'signingKeys' | 'tokens'>, scope: TenantScope): Promise<{ keys: PublicJwk[] }> {
  const project = await deps.projects.findById(scope.projectId);
  if (!project) throw new AuthError('not_found', 'Project not found.');
  const horizonMs = (project.accessTokenTtlSeconds + CLOCK_LEEWAY_SECONDS) * 1000;
  const since = new Date(deps.clock.now().getTime() - horizonMs);
  const keys = await deps.signingKeys.listPublished(scope, since);
  return { keys: keys.map((key) => deps.tokens.toPublicJwk(key)) };
}

/** The current public key in PEM form (what the dashboard shows for local verification). */
export async function currentPublicKey(deps: Pick<AuthDeps, 'signingKeys'>, scope: TenantScope): Promise<{ kid: string; publicKey: string }> {
  const key = await deps.signingKeys.current(scope);
  if (!key) throw new AuthError('not_found', 'No signing key for this environment.');
  return { kid: key.kid, publicKey: key.publicKeyPem };
}
