import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { MAX_PASSKEY_NAME, type Passkey } from '../../domain/passkey';
import type { Project } from '../../domain/project';
import type { User } from '../../domain/user';
import type { AuthDeps, OptionalDeps } from '../deps';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import { newBearerSecret } from '../../domain/secrets';
import { echoedChallenge, requireRelyingParty, storeChallenge, takeChallenge } from './webauthn-challenges';

type RegisterDeps = Pick<AuthDeps, 'clock' | 'random' | 'oneTimeTokens' | 'passkeys' | 'webauthn'> & OptionalDeps<'events' | 'unitOfWork'>;

/** POST /api/auth/passkeys/register/options: creation options for the signed-in user. */
export async function passkeyRegistrationOptions(deps: RegisterDeps, scope: TenantScope, project: Project, user: User): Promise<Record<string, unknown>> {
  const rp = requireRelyingParty(project);
  const challenge = newBearerSecret(deps.random);
  await storeChallenge(deps, scope, challenge, { userId: user.id, kind: 'registration', challenge });
  const exclude = await deps.passkeys.listForUser(scope, user.id);
  return deps.webauthn.registrationOptions({ rp, user: { id: user.id, name: user.email }, challenge, exclude });
}

/**
 * POST /api/auth/passkeys/register/verify: the attestation must answer a challenge issued to
 * this same user, from an allowed origin for the project's RP ID, with user verification. Every
 * failure is `invalid_passkey`. The challenge is consumed by the first attempt, right or wrong.
 */
export async function registerPasskey(deps: RegisterDeps, scope: TenantScope, project: Project, user: User, input: { response: unknown; name?: string }): Promise<Passkey> {
  const rp = requireRelyingParty(project);
  const challenge = echoedChallenge(input.response);
  const stored = challenge && (await takeChallenge(deps, scope, challenge, 'registration'));
  if (!stored || stored.userId !== user.id) throw new AuthError('invalid_passkey');
  const verified = await deps.webauthn.verifyRegistration({ rp, challenge: stored.data.challenge, response: input.response });
  if (!verified) throw new AuthError('invalid_passkey');
  const passkey: Passkey = {
    id: deps.random.uuid(),
    userId: user.id,
    ...verified,
    name: input.name?.trim().slice(0, MAX_PASSKEY_NAME) || 'Passkey',
    createdAt: deps.clock.now(),
    lastUsedAt: null,
  };
  await atomically(deps, async () => {
    if ((await deps.passkeys.add(scope, passkey)) === 'exists') throw new AuthError('invalid_passkey');
    await emitEvent(deps, scope, { type: 'passkey.added', userId: user.id, actor: { type: 'user', userId: user.id }, data: { passkeyId: passkey.id } });
  });
  return passkey;
}

/** GET /api/auth/passkeys: the user's passkeys, oldest first. */
export function listPasskeys(deps: Pick<AuthDeps, 'passkeys'>, scope: TenantScope, user: User): Promise<Passkey[]> {
  return deps.passkeys.listForUser(scope, user.id);
}

/** DELETE /api/auth/passkeys/{id}: 404 not_found unless the passkey is the user's own. */
export async function removePasskey(deps: Pick<AuthDeps, 'passkeys'> & OptionalDeps<'events' | 'unitOfWork'>, scope: TenantScope, user: User, id: string): Promise<void> {
  await atomically(deps, async () => {
    if (!(await deps.passkeys.remove(scope, user.id, id))) throw new AuthError('not_found', 'Passkey not found.');
    await emitEvent(deps, scope, { type: 'passkey.removed', userId: user.id, actor: { type: 'user', userId: user.id }, data: { passkeyId: id } });
  });
}
