import type { User } from './user';

/** The ways a person shows they hold an account's mailbox. */
export type MailboxProof =
  /** Opened a magic link mailed to the address. */
  | 'magic_link'
  /** Opened a reset link mailed to the address, and sets a new password with it. */
  | 'password_reset'
  /** Signed in at an identity provider that vouches for the address as verified. */
  | 'verified_provider_email'
  /** Confirmed a sign-up with the link or code of the verification mail ("if it was you"). */
  | 'sign_up_confirmation';

/**
 * What can be set up on an account, and so what a takeover may have left behind. `sessions` are
 * the sign-ins: the live sessions and the clients they made known (exempt from lockout).
 */
export type AccountSetup = 'password' | 'totp' | 'passkeys' | 'identities' | 'sessions' | 'pending_tokens';

const EVERYTHING: readonly AccountSetup[] = ['password', 'totp', 'passkeys', 'identities', 'sessions', 'pending_tokens'];

/**
 * No pre-account takeover (docs/security.md, "Pre-account takeover"). Until someone proves they
 * hold the mailbox, an account's address is only a claim: whoever signed up with it may not own
 * it, and whatever they set up (password, TOTP, passkeys, linked identities, live sessions, open
 * challenges and links) is theirs. The first proof hands the account to the mailbox's holder and
 * ends all of it; only the password a reset sets in that very step is the holder's own and stays.
 * Once the address is verified a proof ends nothing: it is an ordinary sign-in or reset.
 *
 * Answers the claim the proof makes (what it ends; the address then counts as verified), or null
 * when the address is verified already and the proof claims nothing.
 */
export function mailboxClaim(user: Pick<User, 'emailVerified'>, proof: MailboxProof): { ends: AccountSetup[] } | null {
  if (user.emailVerified) return null;
  // The holder vouches for this very sign-up (the mail asks "if it was you"), so what it set up
  // is theirs and stays. With `required` nothing can be set up before (no sign-in), with
  // `optional` a holder who confirms a sign-up that was not theirs hands it over: the mail says
  // to ignore it then (docs/security.md, "E-mail verification").
  if (proof === 'sign_up_confirmation') return { ends: [] };
  return { ends: proof === 'password_reset' ? EVERYTHING.filter((setup) => setup !== 'password') : [...EVERYTHING] };
}
