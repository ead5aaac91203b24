import type { AuthError } from '../../errors';
import { EMAIL_CODE_MAX_ATTEMPTS, emailCodeMatches } from '../../domain/email-code';
import type { TenantScope } from '../../domain/environment';
import type { OneTimePurpose } from '../../domain/one-time-token';
import { normalizeEmail } from '../../domain/user';
import type { AuthDeps } from '../deps';

/**
 * Redeems the code of the latest mail of `purpose` sent to `email` (domain/email-code.ts): the
 * user's open token of that purpose is charged a try first, so the tries after
 * EMAIL_CODE_MAX_ATTEMPTS wrong ones find it dead; the right code consumes it (its link dies
 * too). An unknown address, no open mail and a wrong code all throw `invalid()`. Answers the
 * user id the token acts for.
 */
export async function redeemEmailCode(
  deps: Pick<AuthDeps, 'clock' | 'users' | 'oneTimeTokens'>,
  scope: TenantScope,
  purpose: OneTimePurpose,
  input: { email: string; code: string },
  invalid: () => AuthError,
): Promise<string> {
  const now = deps.clock.now();
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  const open = user && (await deps.oneTimeTokens.findOpenForUser(scope, purpose, user.id, now));
  if (!open?.userId) throw invalid();
  const left = await deps.oneTimeTokens.recordFailedAttempt(scope, purpose, open.tokenHash, { maxAttempts: EMAIL_CODE_MAX_ATTEMPTS + 1, now });
  if (left === 0) throw invalid();
  if (!emailCodeMatches(open, input.code)) {
    if (left === 1) await deps.oneTimeTokens.consume(scope, purpose, open.tokenHash, now);
    throw invalid();
  }
  if (!(await deps.oneTimeTokens.consume(scope, purpose, open.tokenHash, now))) throw invalid();
  return open.userId;
}
