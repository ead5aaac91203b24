import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { OneTimeToken } from '../../domain/one-time-token';
import { WEBAUTHN_CHALLENGE_TTL_SECONDS } from '../../domain/passkey';
import type { Project } from '../../domain/project';
import { relyingPartyOf, type RelyingParty } from '../../domain/relying-party';
import { sha256Hex } from '../../domain/secrets';
import type { AuthDeps } from '../deps';

/** Which ceremony a stored challenge belongs to; one is never accepted for the other. */
export type CeremonyKind = 'registration' | 'authentication';

/** The project's relying party, or 400 when the project says nowhere where passkeys may be used. */
export function requireRelyingParty(project: Project): RelyingParty {
  const rp = relyingPartyOf(project);
  if (!rp || rp.origins.length === 0) {
    throw new AuthError('validation_error', "Passkeys need the project's webauthn settings or allowedOrigins.");
  }
  return rp;
}

/**
 * Stores a ceremony's challenge as a single-use one-time token (5 minutes) under the hash of
 * `handle`: the challenge itself for registration (the browser echoes it in clientDataJSON), a
 * separate challengeId for sign-in. The clear challenge rides in the token's data, since the
 * verifier needs it; it is worthless once the token is consumed or expired.
 */
export async function storeChallenge(
  deps: Pick<AuthDeps, 'clock' | 'oneTimeTokens'>,
  scope: TenantScope,
  handle: string,
  entry: { userId: string | null; kind: CeremonyKind; challenge: string; email?: string },
): Promise<void> {
  const now = deps.clock.now();
  const { userId, ...data } = entry;
  await deps.oneTimeTokens.issue(scope, {
    tokenHash: sha256Hex(handle),
    purpose: 'webauthn_challenge',
    userId,
    data,
    createdAt: now,
    expiresAt: new Date(now.getTime() + WEBAUTHN_CHALLENGE_TTL_SECONDS * 1000),
  });
}

/** Consumes the challenge stored under `handle` if it is open and of `kind`; else null. */
export async function takeChallenge(
  deps: Pick<AuthDeps, 'clock' | 'oneTimeTokens'>,
  scope: TenantScope,
  handle: string,
  kind: CeremonyKind,
): Promise<(OneTimeToken & { data: { challenge: string; email?: string } }) | null> {
  const token = await deps.oneTimeTokens.consume(scope, 'webauthn_challenge', sha256Hex(handle), deps.clock.now());
  if (!token || token.data.kind !== kind || typeof token.data.challenge !== 'string') return null;
  return token as OneTimeToken & { data: { challenge: string; email?: string } };
}

/** The challenge a browser echoed in `response.response.clientDataJSON`, or null when malformed. */
export function echoedChallenge(response: unknown): string | null {
  const clientData = (response as { response?: { clientDataJSON?: unknown } } | null)?.response?.clientDataJSON;
  if (typeof clientData !== 'string' || clientData.length > 4096) return null;
  try {
    const parsed = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof parsed.challenge === 'string' && parsed.challenge.length > 0 ? parsed.challenge : null;
  } catch {
    return null;
  }
}

/** The credential id a browser answered with (`response.id`), or null. */
export function credentialIdOf(response: unknown): string | null {
  const id = (response as { id?: unknown } | null)?.id;
  return typeof id === 'string' && /^[A-Za-z0-9_-]{1,1400}$/.test(id) ? id : null;
}
