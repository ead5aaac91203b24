import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import type { Project } from '../domain/project';
import { normalizeEmail } from '../domain/user';
import { completeFirstFactor, type FirstFactorDeps, type SignInResult } from './complete-first-factor';
import type { AuthDeps } from './deps';

export interface LogInInput {
  email: string;
  password: string;
}

/**
 * Contract endpoint 2. Unknown e-mails and passwordless users cost one dummy hash compare, so the
 * answer time does not tell whether an account exists, and the message is the same either way.
 */
export async function logIn(
  deps: FirstFactorDeps & Pick<AuthDeps, 'passwords'>,
  scope: TenantScope,
  project: Project,
  input: LogInInput,
): Promise<SignInResult> {
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  const matches = user?.passwordHash
    ? await deps.passwords.verify(input.password, user.passwordHash)
    : await deps.passwords.verifyDummy(input.password);
  if (!user || !matches) throw new AuthError('invalid_credentials');
  // Banned is told only after the password matched (completeFirstFactor checks it): it reveals
  // nothing to a guesser. A user with TOTP on gets the second-factor challenge instead of tokens.
  return completeFirstFactor(deps, scope, project, user);
}
