import type * as Otpauth from 'otpauth';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS, totpStepAt, type TotpAlgorithm } from '@svc/core';

let library: typeof Otpauth | undefined;

/** Required on first use: a server whose users never enrol TOTP never loads it. */
function otpauth(): typeof Otpauth {
  library ??= require('otpauth') as typeof Otpauth;
  return library;
}

/** RFC 6238 with the `otpauth` library: SHA-1, 6 digits, 30-second steps, as authenticator apps expect. */
export class OtpauthTotp implements TotpAlgorithm {
  matchStep(input: { secret: string; code: string; at: Date; window: number }): number | null {
    if (!/^\d+$/.test(input.code) || input.code.length !== TOTP_DIGITS) return null;
    const delta = this.totp(input.secret).validate({ token: input.code, timestamp: input.at.getTime(), window: input.window });
    return delta === null ? null : totpStepAt(input.at) + delta;
  }

  keyUri(input: { secret: string; issuer: string; account: string }): string {
    return this.totp(input.secret, { issuer: input.issuer, label: input.account }).toString();
  }

  private totp(secret: string, labels: { issuer?: string; label?: string } = {}): Otpauth.TOTP {
    const { Secret, TOTP } = otpauth();
    return new TOTP({
      ...labels,
      secret: Secret.fromBase32(secret),
      algorithm: 'SHA1',
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
  }
}
