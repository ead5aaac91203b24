import { sha256Hex } from './secrets';
import type { Random } from '../ports/random';

/**
 * E-mail codes: a mail that carries a single-use link also carries a 6-digit code, for readers
 * whose mail scanner opens links first or who read the mail on another device. The code is
 * bound to the link's token (one token, redeemable either way, once) and stored only as a hash
 * salted with that token's hash. Six digits are guessable offline from a copy of the table
 * within the link's life; online, a code dies after EMAIL_CODE_MAX_ATTEMPTS wrong tries.
 */
export const EMAIL_CODE_DIGITS = 6;

/** Wrong codes a mail's code survives; the next wrong one ends it (and its link). */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;

/** A uniformly drawn code of EMAIL_CODE_DIGITS digits (rejection sampling, no modulo bias). */
export function newEmailCode(random: Random): string {
  const bound = 10 ** EMAIL_CODE_DIGITS;
  const limit = Math.floor(0x1_0000_0000 / bound) * bound;
  for (;;) {
    const [a, b, c, d] = random.bytes(4);
    const value = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
    if (value < limit) return String(value % bound).padStart(EMAIL_CODE_DIGITS, '0');
  }
}

/** What is stored of `code` for the token with hash `tokenHash`. */
export function emailCodeHash(tokenHash: string, code: string): string {
  return sha256Hex(`email-code:${tokenHash}:${code}`);
}

/** True when `code`, spaces removed, matches the stored hash of the token. */
export function emailCodeMatches(token: { tokenHash: string; data: Record<string, unknown> }, code: string): boolean {
  const digits = code.replace(/\s+/g, '');
  return new RegExp(`^\\d{${EMAIL_CODE_DIGITS}}$`).test(digits) && token.data.codeHash === emailCodeHash(token.tokenHash, digits);
}
