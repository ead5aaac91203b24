import { sha256Hex } from './secrets';

// RFC 6238 as authenticator apps expect it: 30-second steps, 6 digits, HMAC-SHA-1.
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Clock drift tolerated between the server and the authenticator: one step either way. */
export const TOTP_DRIFT_STEPS = 1;
/** Bytes of a new TOTP secret: 160 bits, the HMAC-SHA-1 block RFC 4226 recommends. */
export const TOTP_SECRET_BYTES = 20;

/** How long a second-factor challenge (twoFactorToken) lives (docs/security.md). */
export const TWO_FACTOR_CHALLENGE_TTL_SECONDS = 5 * 60;
/** Codes checked against one challenge before it dies. */
export const TWO_FACTOR_MAX_ATTEMPTS = 5;

export const RECOVERY_CODE_COUNT = 10;
/** Characters of a recovery code (base32: 5 bits each, so 50 bits), shown as `xxxxx-xxxxx`. */
const RECOVERY_CODE_LENGTH = 10;

/** The second factors a challenge may be answered with. */
export type SecondFactorMethod = 'totp';

/** A user's TOTP enrollment. Setup is `pending` until the user proves one code; only `enabled` ones challenge sign-ins. */
export interface TotpEnrollment {
  userId: string;
  /** The base32 secret sealed with SecretBox under {@link totpSecretContext}; never stored in clear. */
  sealedSecret: string;
  status: 'pending' | 'enabled';
  /** The latest time step accepted; codes of this step or earlier are never accepted again (no replay). */
  lastUsedStep: number | null;
  createdAt: Date;
  enabledAt: Date | null;
}

/** Binds a sealed TOTP secret to its tenant and user, so a value copied to another row does not open. */
export function totpSecretContext(scope: { projectId: string; environment: string }, userId: string): string {
  return `totp:${scope.projectId}:${scope.environment}:${userId}`;
}

/** The time step (RFC 6238 `T`) that contains `at`. */
export function totpStepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** True when `code` has the shape of a TOTP code (6 digits, spaces allowed as people type them). */
export function looksLikeTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s+/g, ''));
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding: the form authenticator apps read secrets in. */
export function toBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A new recovery code, `xxxxx-xxxxx` in lower-case base32, from 50 random bits. */
export function newRecoveryCode(randomBytes: Uint8Array): string {
  const chars = toBase32(randomBytes).toLowerCase().slice(0, RECOVERY_CODE_LENGTH);
  if (chars.length < RECOVERY_CODE_LENGTH) throw new RangeError('newRecoveryCode needs at least 7 random bytes');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/**
 * The stored form of a recovery code: SHA-256 of the code without separators, lower-cased, so
 * `ABCDE FGHIJ` and `abcde-fghij` are the same code. 50 random bits per single-use code behind a
 * password and a five-attempt challenge need no slow hash.
 */
export function hashRecoveryCode(code: string): string {
  return sha256Hex(code.toLowerCase().replace(/[^a-z0-9]/g, ''));
}
