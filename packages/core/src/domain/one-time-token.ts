/**
 * What a single-use bearer secret is for. Each purpose has its own lifetime
 * (ONE_TIME_TOKEN_TTL_SECONDS, docs/security.md) and a token of one purpose is never accepted for another.
 */
export const ONE_TIME_PURPOSES = [
  'magic_link',
  'password_reset',
  'oauth_exchange',
  'two_factor',
  'webauthn_challenge',
  'oidc_request',
  // OAuth sign-in state: binds a callback to its initiate call, single use, 10 minutes.
  'oauth_state',
  // Confirms the address of a password sign-up (link or code), 24 hours.
  'email_verification',
  // Confirms a signed-in user's new address (link or code, mailed to it), 24 hours; data: newEmail.
  'email_change',
] as const;
export type OneTimePurpose = (typeof ONE_TIME_PURPOSES)[number];

export interface OneTimeToken {
  /** SHA-256 of the raw token; the raw token is never stored. */
  tokenHash: string;
  purpose: OneTimePurpose;
  /** The user the token acts for, when it has one (magic link, reset, exchange code, challenge). */
  userId: string | null;
  /** Small JSON payload bound to the token (e.g. the OAuth provider, a WebAuthn challenge). */
  data: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
  /** Wrong answers recorded against the token (second-factor challenges die after a few). */
  failedAttempts: number;
}

export type NewOneTimeToken = Omit<OneTimeToken, 'consumedAt' | 'failedAttempts'>;
