import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import type { Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { normalizeEmail, type User } from '../../domain/user';
import type { AuthDeps, OptionalDeps } from '../deps';
import { redeemUserCode } from '../email/email-codes';
import { enqueueLinkMail, enqueueNotice, type LinkMailDeps } from '../email/enqueue-link-mail';
import { environmentOfLinkToken, linkBaseOf } from '../email/link-tokens';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';
import type { CurrentSession } from './current-session';
import { requireRecentSignIn, type Reauthentication, type RecentSignInDeps } from './recent-sign-in';

export type EmailChangeDeps = RecentSignInDeps & LinkMailDeps & Pick<AuthDeps, 'users' | 'oneTimeTokens'>;

const invalid = () => new AuthError('invalid_verification', 'The confirmation link or code is not valid.');

/**
 * POST /api/auth/email/change (recent sign-in): mails a link and a code to the new address and a
 * notice to the current one; nothing changes until the new mailbox's holder confirms (an address
 * becomes an account's only by proof of its mailbox: docs/security.md, "Changing the e-mail
 * address"). An address another user holds gets no mail, and the answer is the same.
 */
export async function requestEmailChange(deps: EmailChangeDeps, scope: TenantScope, project: Project, current: CurrentSession, input: { newEmail: string } & Reauthentication): Promise<void> {
  const newEmail = normalizeEmail(input.newEmail);
  if (newEmail === current.user.email) throw new AuthError('validation_error', 'newEmail is the current address.');
  linkBaseOf(project, 'email_change');
  await requireRecentSignIn(deps, scope, project, current, input);
  if (await deps.users.findByEmail(scope, newEmail)) return;
  await enqueueLinkMail(deps, scope, project, { id: current.user.id, email: newEmail }, 'email_change', { data: { newEmail } });
  await enqueueNotice(deps, scope, project, current.user.email, 'email_change_notice');
}

/** The link's token (API key only), or the mail's code from the signed-in user. */
export type EmailChangeConfirmation = { token: string } | { current: CurrentSession; code: string };

/**
 * POST /api/auth/email/change/confirm: the new address becomes the user's, verified. Open links
 * mailed to the old address die. `user_already_exists` when another user took the address since.
 */
export async function confirmEmailChange(
  deps: Pick<AuthDeps, 'clock' | 'users' | 'oneTimeTokens'> & OptionalDeps<'events' | 'unitOfWork'>,
  scope: TenantScope,
  input: EmailChangeConfirmation,
): Promise<User> {
  const now = deps.clock.now();
  const token = 'token' in input ? await consumeLink(deps, scope, input.token) : await redeemUserCode(deps, scope, 'email_change', input.current.user.id, input.code, invalid);
  const newEmail = token.data.newEmail;
  const userId = token.userId;
  if (!userId || typeof newEmail !== 'string') throw invalid();
  return atomically(deps, async () => {
    const changed = await deps.users.changeEmail(scope, userId, newEmail);
    if (changed === 'exists') throw new AuthError('user_already_exists');
    if (changed === 'not_found') throw invalid();
    await deps.oneTimeTokens.revokeForUser(scope, userId, ['magic_link', 'password_reset', 'email_verification', 'email_change'], now);
    const user = await deps.users.findById(scope, userId);
    if (!user) throw invalid();
    await emitEvent(deps, scope, { type: 'email.changed', userId: user.id, actor: { type: 'user', userId: user.id }, data: {} });
    return user;
  });
}

async function consumeLink(deps: Pick<AuthDeps, 'clock' | 'oneTimeTokens'>, scope: TenantScope, token: string) {
  if (environmentOfLinkToken(token, 'email_change') !== scope.environment) throw invalid();
  const consumed = await deps.oneTimeTokens.consume(scope, 'email_change', sha256Hex(token), deps.clock.now());
  if (!consumed) throw invalid();
  return consumed;
}
