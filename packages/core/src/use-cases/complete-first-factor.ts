import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import { mustVerifyEmail, type Project } from '../domain/project';
import type { SignInFailureReason, SignInMethod } from '../domain/security-event';
import { newBearerSecret, sha256Hex } from '../domain/secrets';
import type { TokenBundle } from '../domain/tokens';
import { TWO_FACTOR_CHALLENGE_TTL_SECONDS, type SecondFactorMethod } from '../domain/two-factor';
import { isBanned, type User } from '../domain/user';
import type { SignInClient } from '../domain/known-device';
import { hasCapability, type AuthDeps, type OptionalDeps } from './deps';
import { emitEvent } from './events/record-event';
import { atomically } from './atomically';
import { openSession } from './issue-tokens';
import { rememberClient } from './known-clients';

/** A finished sign-in: the user as signed in and the first token bundle of a new session. */
export type SignedIn = { user: User } & TokenBundle;

/** The answer to a first factor when the user has a second one (the OpenAPI document, the login shape). */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  /** Single-use, 5 minutes, dies after 5 wrong codes; redeem at /api/auth/2fa/totp/verify. */
  twoFactorToken: string;
  methods: SecondFactorMethod[];
}

/** What every password-equivalent sign-in path answers: tokens, or a second-factor challenge. */
export type SignInResult = ({ twoFactorRequired: false } & SignedIn) | TwoFactorChallenge;

type SessionDeps = Pick<AuthDeps, 'settings' | 'clock' | 'random' | 'users' | 'sessions' | 'tokens'> & OptionalDeps<'events' | 'unitOfWork' | 'knownDevices'>;
/** Without the TOTP capability no user has a second factor to ask for. */
export type FirstFactorDeps = SessionDeps & OptionalDeps<'twoFactor' | 'totp' | 'secretBox' | 'oneTimeTokens'>;

/** Who signs in: the session records its address and user agent (the device list). */
export interface SignInOptions {
  client?: SignInClient;
}

/** How a sign-in path finishes: whether it makes its client known. */
interface FinishOptions extends SignInOptions {
  /**
   * The sign-in makes `client` known to the account (known-clients.ts): password, second-factor
   * and passkey sign-ins do; magic-link and OAuth sign-ins do not (docs/security.md, known clients).
   */
  rememberClient?: boolean;
}

/**
 * Records lastLoginAt and starts a session: the last step of every successful sign-in, which it
 * reports, and where the paths that ask for it make their client known. A project that requires confirmed addresses refuses an unconfirmed user here, whatever
 * the path (the password path refuses earlier, before any second-factor challenge, and mails the
 * link again).
 */
export async function finishSignIn(deps: SessionDeps, scope: TenantScope, project: Project, user: User, method: SignInMethod, options: FinishOptions = {}): Promise<SignedIn> {
  if (mustVerifyEmail(project, user)) return refuseSignIn(deps, scope, { userId: user.id, method, reason: 'email_not_verified' });
  const now = deps.clock.now();
  // Every check has passed, so the client becomes known beside the sign-in's transaction, outside
  // it (its own transaction, on a connection of its own): a sign-in waits for the longer of the two
  // rather than both. Either failing fails the sign-in.
  const [{ bundle }] = await Promise.all([
    atomically(deps, async () => {
      await deps.users.recordLogin(scope, user.id, now);
      const opened = await openSession(deps, scope, project, user, options);
      await emitEvent(deps, scope, { type: 'user.signed_in', userId: user.id, actor: { type: 'user', userId: user.id }, data: { sessionId: opened.sessionId, method } });
      return opened;
    }),
    options.rememberClient ? rememberClient(deps, scope, user.id, options.client) : undefined,
  ]);
  return { user: { ...user, lastLoginAt: now }, ...bundle };
}

/** Reports a refused sign-in (never what was tried), then throws `code`. */
export async function refuseSignIn(deps: OptionalDeps<'events'>, scope: TenantScope, refusal: { userId?: string; method: SignInMethod; reason: SignInFailureReason }): Promise<never> {
  const { userId, method, reason } = refusal;
  await emitEvent(deps, scope, { type: 'user.sign_in_failed', userId, data: { method, reason } });
  throw new AuthError(reason);
}

/** Whether `userId` has a second factor to be asked for: TOTP on (without the TOTP capability, nobody has). */
export async function hasSecondFactor(deps: FirstFactorDeps, scope: TenantScope, userId: string): Promise<boolean> {
  return hasCapability(deps, 'totp') && (await deps.twoFactor.findTotp(scope, userId))?.status === 'enabled';
}

/** How a first factor completes: as a sign-in finishes, and perhaps with the second factor read already. */
interface FirstFactorOptions extends FinishOptions {
  /**
   * `hasSecondFactor` for this user, started while the first factor was being checked (a
   * password's compare): one round trip less after it. Awaited only once the first factor has
   * proved the user; the caller keeps it from rejecting unhandled when it is not.
   */
  secondFactor?: Promise<boolean>;
}

/**
 * The second-factor rule for every password-equivalent path (password, magic link, OAuth
 * sign-in): call it once the first factor has proved `user`. A banned user is refused; a user
 * with TOTP on gets the challenge and no tokens; anyone else is signed in.
 */
export async function completeFirstFactor(deps: FirstFactorDeps, scope: TenantScope, project: Project, user: User, method: SignInMethod, options: FirstFactorOptions = {}): Promise<SignInResult> {
  const { secondFactor, ...finish } = options;
  if (isBanned(user)) return refuseSignIn(deps, scope, { userId: user.id, method, reason: 'user_banned' });
  // The capability (which hasSecondFactor also asks) gives the challenge its one-time tokens.
  if (hasCapability(deps, 'totp') && (await (secondFactor ?? hasSecondFactor(deps, scope, user.id)))) return issueTwoFactorChallenge(deps, scope, user);
  return { twoFactorRequired: false, ...(await finishSignIn(deps, scope, project, user, method, finish)) };
}

async function issueTwoFactorChallenge(deps: Pick<AuthDeps, 'clock' | 'random' | 'oneTimeTokens'>, scope: TenantScope, user: User): Promise<TwoFactorChallenge> {
  const now = deps.clock.now();
  const twoFactorToken = newBearerSecret(deps.random);
  await deps.oneTimeTokens.issue(scope, {
    tokenHash: sha256Hex(twoFactorToken),
    purpose: 'two_factor',
    userId: user.id,
    data: {},
    createdAt: now,
    expiresAt: new Date(now.getTime() + TWO_FACTOR_CHALLENGE_TTL_SECONDS * 1000),
  });
  return { twoFactorRequired: true, twoFactorToken, methods: ['totp'] };
}
