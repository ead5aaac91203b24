import { AuthError } from '../../errors';
import type { TenantScope } from '../../domain/environment';
import { sendsEmailVerification, type Project } from '../../domain/project';
import { sha256Hex } from '../../domain/secrets';
import { isBanned, normalizeEmail, type User } from '../../domain/user';
import type { AuthDeps } from '../deps';
import { proveMailbox, type MailboxProofDeps } from '../prove-mailbox';
import { redeemEmailCode } from './email-codes';
import { enqueueLinkMail, type LinkMailDeps } from './enqueue-link-mail';
import { environmentOfLinkToken, linkBaseOf } from './link-tokens';

export type EmailVerificationInput = { token: string } | { email: string; code: string };

const invalid = () => new AuthError('invalid_verification');

/**
 * POST /api/auth/email/verify: the link's token, or the address with the mail's code, confirms
 * the address (a sign-up confirmation; see mailboxClaim). Wrong, used, expired or another
 * environment's tokens, and wrong codes, are `invalid_verification`; five wrong codes end the mail.
 */
export async function verifyEmail(deps: MailboxProofDeps & Pick<AuthDeps, 'oneTimeTokens'>, scope: TenantScope, input: EmailVerificationInput): Promise<User> {
  const userId = 'token' in input ? await consumeLink(deps, scope, input.token) : await redeemEmailCode(deps, scope, 'email_verification', input, invalid);
  const user = await deps.users.findById(scope, userId);
  if (!user) throw invalid();
  return proveMailbox(deps, scope, user, 'sign_up_confirmation');
}

async function consumeLink(deps: Pick<AuthDeps, 'clock' | 'oneTimeTokens'>, scope: TenantScope, token: string): Promise<string> {
  if (environmentOfLinkToken(token, 'email_verification') !== scope.environment) throw invalid();
  const consumed = await deps.oneTimeTokens.consume(scope, 'email_verification', sha256Hex(token), deps.clock.now());
  if (!consumed?.userId) throw invalid();
  return consumed.userId;
}

/** Queues the verification mail (link and code) for `user`; a newer one supersedes older ones. */
export function sendEmailVerification(deps: LinkMailDeps, scope: TenantScope, project: Project, user: Pick<User, 'id' | 'email'>): Promise<void> {
  return enqueueLinkMail(deps, scope, project, user, 'email_verification');
}

/**
 * POST /api/auth/email/verify/resend, in two steps like the magic-link request: the project's
 * configuration is checked now (verification on, `emailVerificationUrl` set, else 400); the
 * returned work mails an unconfirmed, unbanned user of that address and does nothing otherwise,
 * after the answer, so the answer does not tell whether the account exists.
 */
export function acceptEmailVerificationResend(deps: LinkMailDeps & Pick<AuthDeps, 'users'>, scope: TenantScope, project: Project, input: { email: string }): () => Promise<void> {
  if (!sendsEmailVerification(project)) throw new AuthError('validation_error', 'E-mail verification is off for this project (emailVerification).');
  linkBaseOf(project, 'email_verification');
  return async () => {
    const user = await deps.users.findByEmail(scope, normalizeEmail(input.email));
    if (!user || user.emailVerified || isBanned(user)) return;
    await sendEmailVerification(deps, scope, project, user);
  };
}
