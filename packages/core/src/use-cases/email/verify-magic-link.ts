import { AuthError } from '../../errors';
import { isUuid } from '../../domain/ids';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { isBanned } from '../../domain/user';
import type { TenantScope } from '../../domain/environment';
import { completeFirstFactor, type FirstFactorDeps, type SignInOptions, type SignInResult } from '../complete-first-factor';
import type { AuthDeps } from '../deps';
import { proveMailbox, type MailboxProofDeps } from '../prove-mailbox';
import { redeemEmailCode } from './email-codes';
import { environmentOfLinkToken } from './link-tokens';

/**
 * The project a magic link names (its `project` query). The verify call has no API key, so an
 * unknown or malformed id is just another invalid link.
 */
export async function magicLinkProject(deps: Pick<AuthDeps, 'projects'>, projectId: string): Promise<Project> {
  const project = isUuid(projectId) ? await deps.projects.findById(projectId) : null;
  if (!project) throw new AuthError('invalid_magic_link');
  return project;
}

/**
 * The origins that may call verify for links of `projectId` (its `allowedOrigins`; empty = any), or
 * null when no project has that id: CORS of the key-less verify call.
 */
export async function magicLinkOrigins(deps: Pick<AuthDeps, 'projects'>, projectId: string): Promise<readonly string[] | null> {
  return isUuid(projectId) ? ((await deps.projects.findById(projectId))?.allowedOrigins ?? null) : null;
}

/**
 * `GET /api/auth/magic-link/verify`. The token's marker names the environment; the atomic consume makes the
 * link single-use (of concurrent verifies exactly one gets past it). A wrong, used, expired or
 * other-project token is `invalid_magic_link`; a user deleted since the link was sent is
 * `user_not_found`. Opening the link proves the mailbox: on an unverified account that ends
 * whatever was set up before (password, TOTP, sessions...; see proveMailbox) and verifies the
 * address. Then the rule of every password-equivalent path applies: TOTP on -> the challenge.
 */
export async function verifyMagicLink(deps: MagicLinkSignInDeps, project: Project, token: string, options: SignInOptions = {}): Promise<SignInResult> {
  const environment = environmentOfLinkToken(token, 'magic_link');
  if (!environment) throw new AuthError('invalid_magic_link');
  const scope = { projectId: project.id, environment };
  const consumed = await deps.oneTimeTokens.consume(scope, 'magic_link', sha256Hex(token), deps.clock.now());
  if (!consumed?.userId) throw new AuthError('invalid_magic_link');
  return signInByMailbox(deps, scope, project, consumed.userId, options);
}

export type MagicLinkSignInDeps = FirstFactorDeps & MailboxProofDeps & Pick<AuthDeps, 'oneTimeTokens'>;

/**
 * POST /api/auth/magic-link/verify-code (API key): the code of the user's latest magic-link mail
 * instead of its link (redeemEmailCode: the link dies with it, five wrong codes end it). An
 * unknown address, no open mail and a wrong code all answer `invalid_magic_link`; then it goes
 * on as the link does.
 */
export async function verifyMagicLinkCode(deps: MagicLinkSignInDeps, scope: TenantScope, project: Project, input: { email: string; code: string }, options: SignInOptions = {}): Promise<SignInResult> {
  const userId = await redeemEmailCode(deps, scope, 'magic_link', input, () => new AuthError('invalid_magic_link'));
  return signInByMailbox(deps, scope, project, userId, options);
}

/** A magic link's or code's user proved the mailbox: the takeover rule, then the first-factor rule. */
async function signInByMailbox(deps: MagicLinkSignInDeps, scope: TenantScope, project: Project, userId: string, options: SignInOptions): Promise<SignInResult> {
  const user = await deps.users.findById(scope, userId);
  if (!user) throw new AuthError('user_not_found');
  if (isBanned(user)) throw new AuthError('user_banned');
  // A magic-link sign-in does not make its client known (docs/security.md, known clients).
  return completeFirstFactor(deps, scope, project, await proveMailbox(deps, scope, user, 'magic_link'), 'magic_link', { client: options.client });
}
