import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { isBanned, normalizeEmail } from '../../domain/user';
import type { SignInClient } from '../../domain/known-device';
import { finishSignIn, refuseSignIn, type SignedIn } from '../complete-first-factor';
import type { AuthDeps, OptionalDeps } from '../deps';
import { newBearerSecret } from '../../domain/secrets';
import { credentialIdOf, requireRelyingParty, storeChallenge, takeChallenge } from './webauthn-challenges';

/**
 * POST /api/auth/passkeys/login/options: a challenge for sign-in as `email`. The options never
 * list credentials (passkeys are discoverable), so known and unknown e-mails get answers of the
 * same shape and nothing tells whether an account exists.
 */
export async function passkeyLoginOptions(
  deps: Pick<AuthDeps, 'clock' | 'random' | 'users' | 'oneTimeTokens' | 'webauthn'>,
  scope: TenantScope,
  project: Project,
  input: { email: string },
): Promise<{ challengeId: string; options: Record<string, unknown> }> {
  const rp = requireRelyingParty(project);
  const email = normalizeEmail(input.email);
  const user = await deps.users.findByEmail(scope, email);
  const challenge = newBearerSecret(deps.random);
  const challengeId = newBearerSecret(deps.random);
  await storeChallenge(deps, scope, challengeId, { userId: user?.id ?? null, kind: 'authentication', challenge, email });
  return { challengeId, options: await deps.webauthn.authenticationOptions({ rp, challenge }) };
}

type LoginDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'sessions' | 'tokens' | 'oneTimeTokens' | 'passkeys' | 'webauthn'> & OptionalDeps<'knownDevices' | 'events'>;

/**
 * POST /api/auth/passkeys/login/verify: the assertion must answer this challenge (single use),
 * come from a passkey of the user the challenge was issued for, verify against the project's
 * relying party with user verification, and move the signature counter forward. Possession plus
 * user verification is two factors already, so TOTP is not asked for (docs/security.md).
 */
export async function logInWithPasskey(
  deps: LoginDeps,
  scope: TenantScope,
  project: Project,
  input: { challengeId: string; email: string; response: unknown },
  options: { client?: SignInClient } = {},
): Promise<SignedIn> {
  const rp = requireRelyingParty(project);
  const stored = await takeChallenge(deps, scope, input.challengeId, 'authentication');
  const credentialId = credentialIdOf(input.response);
  if (!stored?.userId || stored.data.email !== normalizeEmail(input.email) || !credentialId) throw invalidPasskey();
  const passkey = await deps.passkeys.findByCredentialId(scope, credentialId);
  const user = passkey?.userId === stored.userId ? await deps.users.findById(scope, passkey.userId) : null;
  if (!passkey || !user) throw invalidPasskey();
  const verified = await deps.webauthn.verifyAuthentication({ rp, challenge: stored.data.challenge, response: input.response, passkey });
  const now = deps.clock.now();
  if (!verified || !(await deps.passkeys.recordUse(scope, credentialId, { counter: verified.counter, at: now }))) {
    return refuseSignIn(deps, scope, { userId: user.id, method: 'passkey', reason: 'invalid_passkey' });
  }
  // As at login: a ban is told only to someone who proved the credential.
  if (isBanned(user)) return refuseSignIn(deps, scope, { userId: user.id, method: 'passkey', reason: 'user_banned' });
  return finishSignIn(deps, scope, project, user, 'passkey', { client: options.client, rememberClient: true });
}

const invalidPasskey = () => new AuthError('invalid_passkey');
