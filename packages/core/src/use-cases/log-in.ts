import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import type { Project } from '../domain/project';
import type { TokenBundle } from '../domain/tokens';
import { isBanned, normalizeEmail, type User } from '../domain/user';
import type { AuthDeps } from './deps';
import { startSession } from './issue-tokens';

export interface LogInInput {
  email: string;
  password: string;
}

/**
 * Contract endpoint 2. Unknown e-mails and passwordless users cost one dummy hash compare, so the
 * answer time does not tell whether an account exists, and the message is the same either way.
 */
export async function logIn(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'sessions' | 'tokens' | 'passwords'>,
  scope: TenantScope,
  project: Project,
  input: LogInInput,
): Promise<{ user: User } & TokenBundle> {
  const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
  const matches = user?.passwordHash
    ? await deps.passwords.verify(input.password, user.passwordHash)
    : await deps.passwords.verifyDummy(input.password);
  if (!user || !matches) throw new AuthError('invalid_credentials');
  // Banned is told only after the password matched: it reveals nothing to a guesser.
  if (isBanned(user)) throw new AuthError('user_banned');
  const now = deps.clock.now();
  await deps.users.recordLogin(scope, user.id, now);
  const bundle = await startSession(deps, scope, project, user);
  return { user: { ...user, lastLoginAt: now }, ...bundle };
}
