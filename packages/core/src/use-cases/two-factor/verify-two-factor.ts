import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { TWO_FACTOR_MAX_ATTEMPTS } from '../../domain/two-factor';
import { isBanned } from '../../domain/user';
import type { SignInClient } from '../../domain/known-device';
import { finishSignIn, refuseSignIn, type SignedIn } from '../complete-first-factor';
import type { AuthDeps, OptionalDeps } from '../deps';
import { acceptSecondFactorCode } from './second-factor-codes';

export interface VerifyTwoFactorInput {
  twoFactorToken: string;
  /** A current TOTP code or an unused recovery code. */
  code: string;
}

type VerifyDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'sessions' | 'tokens' | 'oneTimeTokens' | 'twoFactor' | 'secretBox' | 'totp'> & OptionalDeps<'knownDevices' | 'events'>;

const invalidToken = () => new AuthError('invalid_two_factor_token');

/**
 * POST /api/auth/2fa/totp/verify (the OpenAPI document): redeems a login challenge with a code.
 *
 * Each attempt is charged against the challenge BEFORE its code is checked, so concurrent
 * guesses cannot exceed the budget: at most five codes are ever checked against one challenge,
 * and the fifth wrong one kills it. A right code then consumes the challenge atomically, so it
 * signs in once.
 */
export async function verifyTwoFactor(deps: VerifyDeps, scope: TenantScope, project: Project, input: VerifyTwoFactorInput, options: { client?: SignInClient } = {}): Promise<SignedIn> {
  const tokenHash = sha256Hex(input.twoFactorToken);
  const now = deps.clock.now();
  const challenge = await deps.oneTimeTokens.find(scope, 'two_factor', tokenHash);
  if (!challenge?.userId || challenge.consumedAt || challenge.expiresAt <= now) throw invalidToken();
  // One more than the budget: the charge that would exceed it finds the token dead (0 left).
  const left = await deps.oneTimeTokens.recordFailedAttempt(scope, 'two_factor', tokenHash, {
    maxAttempts: TWO_FACTOR_MAX_ATTEMPTS + 1,
    now,
  });
  if (left === 0) throw invalidToken();
  const user = await deps.users.findById(scope, challenge.userId);
  const enrollment = user && (await deps.twoFactor.findTotp(scope, user.id));
  // TOTP turned off (or the user deleted) since the challenge was issued: the challenge is void.
  if (!user || enrollment?.status !== 'enabled') throw invalidToken();
  if (!(await acceptSecondFactorCode(deps, scope, enrollment, input.code))) {
    if (left === 1) await deps.oneTimeTokens.consume(scope, 'two_factor', tokenHash, now);
    return refuseSignIn(deps, scope, { userId: user.id, method: 'totp', reason: 'invalid_totp_code' });
  }
  if (!(await deps.oneTimeTokens.consume(scope, 'two_factor', tokenHash, now))) throw invalidToken();
  if (isBanned(user)) return refuseSignIn(deps, scope, { userId: user.id, method: 'totp', reason: 'user_banned' });
  // The sign-in is complete only now: the client that did both factors becomes known.
  return finishSignIn(deps, scope, project, user, 'totp', { client: options.client, rememberClient: true });
}
