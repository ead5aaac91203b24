import type { AuthError } from '../../errors';
import { EMAIL_CODE_MAX_ATTEMPTS, emailCodeMatches } from '../../domain/email-code';
import type { TenantScope } from '../../domain/environment';
import type { OneTimePurpose, OneTimeToken } from '../../domain/one-time-token';
import { normalizeEmail } from '../../domain/user';
import type { AuthDeps } from '../deps';

type CodeDeps = Pick<AuthDeps, 'clock' | 'users' | 'oneTimeTokens'>;

/**
 * Redeems the code of the latest mail of `purpose` sent to `email` (domain/email-code.ts): the
 * user's open token of that purpose is charged a try first, so the tries after
 * EMAIL_CODE_MAX_ATTEMPTS wrong ones find it dead; the right code consumes it (its link dies
 * too). An unknown address, no open mail and a wrong code all throw `invalid()`. Answers the
 * user id the token acts for.
 */
export async function redeemEmailCode(deps: CodeDeps, scope: TenantScope, purpose: OneTimePurpose, input: { email: string; code: string }, invalid: () => AuthError): Promise<string> {
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  if (!user) throw invalid();
  const token = await redeemUserCode(deps, scope, purpose, user.id, input.code, invalid);
  return token.userId ?? user.id;
}

/** The same for a user already known (a signed-in one): answers the consumed token, its data included. */
export async function redeemUserCode(deps: CodeDeps, scope: TenantScope, purpose: OneTimePurpose, userId: string, code: string, invalid: () => AuthError): Promise<OneTimeToken> {
  const now = deps.clock.now();
  const open = await deps.oneTimeTokens.findOpenForUser(scope, purpose, userId, now);
  if (!open) throw invalid();
  const left = await deps.oneTimeTokens.recordFailedAttempt(scope, purpose, open.tokenHash, { maxAttempts: EMAIL_CODE_MAX_ATTEMPTS + 1, now });
  if (left === 0) throw invalid();
  if (!emailCodeMatches(open, code)) {
    if (left === 1) await deps.oneTimeTokens.consume(scope, purpose, open.tokenHash, now);
    throw invalid();
  }
  const consumed = await deps.oneTimeTokens.consume(scope, purpose, open.tokenHash, now);
  if (!consumed) throw invalid();
  return consumed;
}
