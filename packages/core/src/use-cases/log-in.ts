import type { TenantScope } from '../domain/environment';
import { mustVerifyEmail, type Project } from '../domain/project';
import type { SignInClient } from '../domain/known-device';
import { isBanned, normalizeEmail, type User } from '../domain/user';
import { completeFirstFactor, hasSecondFactor, refuseSignIn, type FirstFactorDeps, type SignInResult } from './complete-first-factor';
import type { AuthDeps, OptionalDeps } from './deps';
import { isKnownClient } from './known-clients';
import { sendEmailVerification } from './email/verify-email';

export interface LogInInput {
  email: string;
  password: string;
}

export interface LogInOptions {
  /** Who is signing in (address, device id); a completed sign-in makes it known to the account. */
  client?: SignInClient;
  /**
   * Called before the password is checked when `client` is not known to the account (or the
   * e-mail has none). The HTTP layer spends the per-account limit here and throws
   * `rate_limited` to refuse, so failures from elsewhere cannot lock out a known client.
   */
  unknownClient?: () => Promise<void>;
}

/**
 * `POST /api/auth/login`. Unknown e-mails and passwordless users cost one dummy hash compare, so the
 * answer time does not tell whether an account exists, and the message is the same either way.
 */
export async function logIn(
  deps: FirstFactorDeps & Pick<AuthDeps, 'passwords'> & OptionalDeps<'knownDevices' | 'outbox'>,
  scope: TenantScope,
  project: Project,
  input: LogInInput,
  options: LogInOptions = {},
): Promise<SignInResult> {
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  if (options.unknownClient && !(await isKnownClient(deps, scope, user?.id ?? null, options.client))) await options.unknownClient();
  // Whether the user has a second factor is read while the password is compared: it decides
  // nothing until the password matched, and a compare takes far longer than the read, so the
  // answer's time still tells nothing. Unknown addresses read nothing, as before.
  const secondFactor = user?.passwordHash ? hasSecondFactor(deps, scope, user.id) : undefined;
  // Awaited below once the password matched; a refused sign-in leaves it, failed or not.
  secondFactor?.catch(() => undefined);
  const matches = user?.passwordHash ? await deps.passwords.verify(input.password, user.passwordHash) : await deps.passwords.verifyDummy(input.password);
  if (!user || !matches) return refuseSignIn(deps, scope, { userId: user?.id, method: 'password', reason: 'invalid_credentials' });
  if (!isBanned(user) && mustVerifyEmail(project, user)) await refuseUnverified(deps, scope, project, user);
  // Banned is told only after the password matched (completeFirstFactor checks it): it reveals
  // nothing to a guesser. A user with TOTP on gets the second-factor challenge instead of tokens,
  // and its client becomes known only once the second factor is done too.
  return completeFirstFactor(deps, scope, project, user, 'password', { client: options.client, rememberClient: true, secondFactor });
}

/**
 * A project that requires confirmed addresses refuses the sign-in of an unconfirmed user (only
 * after the password matched: it tells a guesser nothing), and mails the link and code again
 * unless an earlier mail is still open (the resend endpoint sends one on demand).
 */
async function refuseUnverified(
  deps: Pick<AuthDeps, 'clock'> & OptionalDeps<'outbox' | 'secretBox' | 'oneTimeTokens' | 'random' | 'events'>,
  scope: TenantScope,
  project: Project,
  user: User,
): Promise<never> {
  const { outbox, secretBox, oneTimeTokens, random, clock } = deps;
  if (outbox && secretBox && oneTimeTokens && random && project.emailVerificationUrl) {
    const open = await oneTimeTokens.findOpenForUser(scope, 'email_verification', user.id, clock.now());
    if (!open) await sendEmailVerification({ clock, random, outbox, secretBox }, scope, project, user);
  }
  return refuseSignIn(deps, scope, { userId: user.id, method: 'password', reason: 'email_not_verified' });
}
