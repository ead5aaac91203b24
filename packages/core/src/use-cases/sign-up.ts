import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import { effectiveUserLimit, mustVerifyEmail, sendsEmailVerification, type Project } from '../domain/project';
import type { TokenBundle } from '../domain/tokens';
import { isBanned, newUser, normalizeEmail, userMetaProblem, type User, type UserMeta } from '../domain/user';
import { hasCapability, type AuthDeps, type OptionalDeps } from './deps';
import { sendEmailVerification } from './email/verify-email';
import { linkBaseOf } from './email/link-tokens';
import { startSession } from './issue-tokens';
import { acceptNewPassword } from './accept-new-password';
import { emitEvent } from './events/record-event';
import { atomically } from './atomically';
import type { SignInOptions } from './complete-first-factor';

export interface SignUpInput {
  email: string;
  password: string;
  meta?: UserMeta;
}

/**
 * `POST /api/auth/signup`: creates the user in the key's scope and signs them in at once. A project
 * with e-mail verification on also mails a link and a code (verify-email.ts); with `required`
 * the user is created but not signed in: 403 email_not_verified until the address is confirmed.
 */
export async function signUp(
  deps: Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'sessions' | 'tokens' | 'passwords'> &
    OptionalDeps<'commonPasswords' | 'events' | 'outbox' | 'secretBox' | 'oneTimeTokens' | 'unitOfWork'>,
  scope: TenantScope,
  project: Project,
  input: SignUpInput,
  options: SignInOptions = {},
): Promise<{ user: User } & TokenBundle> {
  acceptNewPassword(deps, project, input.password, 'password');
  // A project whose verification mail cannot be built is refused before anyone is created.
  if (sendsEmailVerification(project)) linkBaseOf(project, 'email_verification');
  const metaProblem = input.meta === undefined ? null : userMetaProblem(input.meta, 'meta');
  if (metaProblem) throw new AuthError('validation_error', metaProblem);
  const email = normalizeEmail(input.email);
  await refuseExisting(deps, scope, email);
  const user = newUser({
    id: deps.random.uuid(),
    email,
    passwordHash: await deps.passwords.hash(input.password),
    emailVerified: false,
    defaultMeta: project.defaultMeta,
    meta: input.meta,
    createdAt: deps.clock.now(),
  });
  // The account, its record and its verification mail are one unit of work (the hash is made above, outside it).
  await atomically(deps, async () => {
    const created = await deps.users.createWithinLimit(scope, user, { limit: userLimitFor(deps, scope, project) });
    if (created.status === 'limit_reached') throw new AuthError('plan_limit_reached');
    if (created.status === 'exists') await refuseExisting(deps, scope, email, { racing: true });
    await emitEvent(deps, scope, { type: 'user.created', userId: user.id, actor: { type: 'user', userId: user.id }, data: { method: 'password' } });
    if (sendsEmailVerification(project) && hasCapability(deps, 'mail')) await sendEmailVerification(deps, scope, project, user);
  });
  if (mustVerifyEmail(project, user)) throw new AuthError('email_not_verified', 'The account was created; confirm the e-mail address (a link and a code were sent to it), then sign in.');
  return { user, ...(await startSession(deps, scope, project, user, options)) };
}

/** Sandbox users never count toward a plan limit (contract, Limits). */
export function userLimitFor(deps: Pick<AuthDeps, 'settings'>, scope: TenantScope, project: Project): number | null {
  return scope.environment === 'sandbox' ? null : effectiveUserLimit(project, deps.settings.planUserLimits);
}

async function refuseExisting(deps: Pick<AuthDeps, 'users'>, scope: TenantScope, email: string, options: { racing?: boolean } = {}): Promise<void> {
  const existing = await deps.users.findByEmail(scope, email);
  // A banned user's e-mail answers user_banned (docs/decisions.md#contract-clarifications).
  if (existing && isBanned(existing)) throw new AuthError('user_banned');
  if (existing || options.racing) throw new AuthError('user_already_exists');
}
