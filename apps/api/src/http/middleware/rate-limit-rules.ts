import { RATE_LIMIT_NAMES, type FailoverRule, type RateLimitName, type StoreDownPolicy } from '@svc/core';

/**
 * Every named limit (named in core, where a project's overrides are checked). The first, `signup` .. `passwordReset`, are the contract's Limits table; the
 * rest close the doors an attacker would use next (docs/security.md): password spraying from one
 * address (`loginAddress`), guessing one account's password from many addresses (`loginAccount`,
 * which does not count clients that signed in to the account before),
 * flooding one inbox with sign-in and reset mails from many addresses (`mailAccount`), guessing
 * reset / magic-link tokens and second-factor codes.
 */
export { RATE_LIMIT_NAMES, type RateLimitName };

/**
 * Limit and window (overridable with SVC_RATE_LIMITS, and per project and environment with the
 * project's `rateLimits`) and the fixed outage policy of each limit.
 */
export type RateLimitRules = Record<RateLimitName, FailoverRule>;

// While Redis is down, limits that guard against guessing count per process at half the limit
// ('local-strict'); refresh only protects capacity, and refusing it would log users out, so it
// goes on ('allow'). The policy is not configurable: it is a security property, not a tuning knob.
const strict: { whenStoreDown: StoreDownPolicy } = { whenStoreDown: 'local-strict' };

/** Default values: the contract's table, then ours. Every limit and window is overridable. */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimitRules> = {
  signup: { limit: 10, windowSeconds: 60 * 60, ...strict },
  login: { limit: 10, windowSeconds: 15 * 60, ...strict },
  refresh: { limit: 30, windowSeconds: 60, whenStoreDown: 'allow' },
  magicLink: { limit: 5, windowSeconds: 60 * 60, ...strict },
  passwordReset: { limit: 5, windowSeconds: 60 * 60, ...strict },
  loginAddress: { limit: 100, windowSeconds: 15 * 60, ...strict },
  loginAccount: { limit: 50, windowSeconds: 60 * 60, ...strict },
  mailAccount: { limit: 10, windowSeconds: 60 * 60, ...strict },
  magicLinkVerify: { limit: 30, windowSeconds: 15 * 60, ...strict },
  passwordUpdate: { limit: 10, windowSeconds: 60 * 60, ...strict },
  twoFactorVerify: { limit: 5, windowSeconds: 5 * 60, ...strict },
  totpCode: { limit: 10, windowSeconds: 15 * 60, ...strict },
  reauthenticate: { limit: 10, windowSeconds: 15 * 60, ...strict },
  sessionList: { limit: 60, windowSeconds: 15 * 60, ...strict },
  sessionRevoke: { limit: 30, windowSeconds: 15 * 60, ...strict },
  magicLinkCode: { limit: 30, windowSeconds: 15 * 60, ...strict },
  emailVerify: { limit: 30, windowSeconds: 15 * 60, ...strict },
  emailVerifyResend: { limit: 5, windowSeconds: 60 * 60, ...strict },
  emailChange: { limit: 5, windowSeconds: 60 * 60, ...strict },
  // The admin API and the console: capacity, per address (the admin token itself is not guessable).
  admin: { limit: 1000, windowSeconds: 60, whenStoreDown: 'allow' },
  // Exchanging the admin token for a console session: guesses, per address.
  consoleSignIn: { limit: 10, windowSeconds: 15 * 60, ...strict },
};

/**
 * What each limit counts by; project + environment are always added (docs/security.md#rate-limits).
 * - `ip`: the end user's address (X-Svc-Client-Ip on key-bearing requests, else the socket's).
 * - `ip+email`: that address and the normalised e-mail of the body (the contract's "IP + e-mail").
 * - `email`: the e-mail alone, whatever the address: a caller who can name any address in
 *   X-Svc-Client-Ip (or a botnet) still gets only this many guesses at one account. For login
 *   (`loginAccount`) only clients the account does not know are counted.
 * - `challenge`: the body's `twoFactorToken`: a second-factor challenge gets a few guesses,
 *   from wherever they come.
 * - `user`: the signed-in user (the bearer token's `sub`): TOTP confirm and disable take a code
 *   from a session, and a stolen access token must not buy a million guesses at disabling TOTP;
 *   nor at the current password or code that a sensitive change may carry (`reauthenticate`).
 */
export type RateLimitKeyKind = 'ip' | 'ip+email' | 'email' | 'challenge' | 'user';

export const RATE_LIMIT_KEYS: Readonly<Record<RateLimitName, RateLimitKeyKind>> = {
  signup: 'ip',
  login: 'ip+email',
  refresh: 'ip',
  magicLink: 'ip+email',
  passwordReset: 'ip+email',
  loginAddress: 'ip',
  loginAccount: 'email',
  mailAccount: 'email',
  magicLinkVerify: 'ip',
  passwordUpdate: 'ip',
  twoFactorVerify: 'challenge',
  totpCode: 'user',
  reauthenticate: 'user',
  sessionList: 'user',
  sessionRevoke: 'user',
  magicLinkCode: 'ip',
  emailVerify: 'ip',
  emailVerifyResend: 'ip+email',
  emailChange: 'user',
  admin: 'ip',
  consoleSignIn: 'ip',
};

/**
 * The limits counted before POST /api/auth/login runs, for every client (see `rateLimit`). The
 * third, `loginAccount`, is counted by the route once the use case has found that the client is
 * not known to the account (docs/security.md): failures from elsewhere cannot lock out a client
 * that signed in before, while the contract's `login` limit still holds for every address.
 */
export const LOGIN_LIMITS: readonly RateLimitName[] = ['loginAddress', 'login'];

/**
 * The limits of the two routes that send mail to the body's address. `mailAccount` is one budget
 * for both (the rule name is part of the key), counted by e-mail alone: a caller naming a fresh
 * X-Svc-Client-Ip per request still sends one inbox at most this many mails an hour.
 */
export const MAGIC_LINK_LIMITS: readonly RateLimitName[] = ['mailAccount', 'magicLink'];
export const PASSWORD_RESET_LIMITS: readonly RateLimitName[] = ['mailAccount', 'passwordReset'];
export const EMAIL_VERIFY_RESEND_LIMITS: readonly RateLimitName[] = ['mailAccount', 'emailVerifyResend'];

/** The outage policy of `name`, also for rules given without one (tests, older overrides). */
export function storeDownPolicy(name: RateLimitName, rule: FailoverRule): StoreDownPolicy {
  return rule.whenStoreDown ?? DEFAULT_RATE_LIMITS[name].whenStoreDown ?? 'local-strict';
}
