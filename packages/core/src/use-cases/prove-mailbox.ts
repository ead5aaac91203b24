import type { TenantScope } from '../domain/environment';
import { mailboxClaim, type AccountSetup, type MailboxProof } from '../domain/mailbox-proof';
import type { OneTimePurpose } from '../domain/one-time-token';
import type { User } from '../domain/user';
import type { AuthDeps, OptionalDeps } from './deps';
import { emitEvent } from './events/record-event';
import { atomically } from './atomically';

/** A capability the service was built without has set nothing up, so there is nothing of it to end. */
export type MailboxProofDeps = Pick<AuthDeps, 'clock' | 'users' | 'sessions'> & OptionalDeps<'oneTimeTokens' | 'twoFactor' | 'passkeys' | 'identities' | 'knownDevices' | 'events' | 'unitOfWork'>;

/** Every one-time token that acts for a user: a link, a challenge, an exchange code. */
const USER_TOKENS: OneTimePurpose[] = ['magic_link', 'password_reset', 'two_factor', 'webauthn_challenge', 'oauth_exchange'];

/**
 * Call it on every path that proves `user` holds the mailbox (magic link, password reset, a
 * provider's verified address), after the proof and before anything is issued for it. It applies
 * `mailboxClaim`: on the first proof of an unverified account it ends what was set up
 * before, then marks the address verified. Verified last, so a claim cut short is simply repeated
 * at the next proof. Answers the user as it now stands.
 */
export async function proveMailbox(deps: MailboxProofDeps, scope: TenantScope, user: User, proof: MailboxProof): Promise<User> {
  const claim = mailboxClaim(user, proof);
  if (!claim) return user;
  await atomically(deps, async () => {
    for (const setup of claim.ends) await end(deps, scope, user.id, setup);
    await deps.users.markEmailVerified(scope, user.id);
    if (!user.emailVerified) await emitEvent(deps, scope, { type: 'email.verified', userId: user.id, actor: { type: 'user', userId: user.id }, data: {} });
  });
  return { ...user, emailVerified: true, passwordHash: claim.ends.includes('password') ? null : user.passwordHash };
}

async function end(deps: MailboxProofDeps, scope: TenantScope, userId: string, setup: AccountSetup): Promise<void> {
  const now = deps.clock.now();
  switch (setup) {
    case 'password':
      await deps.users.clearPassword(scope, userId);
      return;
    case 'totp':
      await deps.twoFactor?.removeTotp(scope, userId);
      return;
    case 'passkeys':
      if (!deps.passkeys) return;
      for (const passkey of await deps.passkeys.listForUser(scope, userId)) await deps.passkeys.remove(scope, userId, passkey.id);
      return;
    case 'identities':
      if (!deps.identities) return;
      for (const identity of await deps.identities.listForUser(scope, userId)) await deps.identities.unlink(scope, identity.provider, identity.subject);
      return;
    case 'sessions':
      await deps.sessions.revokeAllForUser(scope, userId, now);
      await deps.knownDevices?.forgetUser(scope, userId);
      return;
    case 'pending_tokens':
      await deps.oneTimeTokens?.revokeForUser(scope, userId, USER_TOKENS, now);
      return;
  }
}
