/**
 * RFC 6238 TOTP with the parameters authenticator apps expect: 30-second steps, 6 digits,
 * HMAC-SHA-1, base32 secrets. Pure computation; kept behind a port so core carries no library.
 */
export interface TotpAlgorithm {
  /**
   * The time step (RFC 6238 `T`, seconds since the epoch / 30) within `window` steps of `at` whose
   * code equals `code`, or null when none does. Nothing is remembered: replay is the caller's
   * business (TwoFactorStore.useTotpStep).
   */
  matchStep(input: { secret: string; code: string; at: Date; window: number }): number | null;
  /** The `otpauth://totp/...` key URI authenticator apps scan (issuer and account label it). */
  keyUri(input: { secret: string; issuer: string; account: string }): string;
}
