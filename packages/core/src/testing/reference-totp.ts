import { createHmac } from 'node:crypto';
import { TOTP_DIGITS, TOTP_PERIOD_SECONDS, totpStepAt } from '../domain/two-factor';
import type { TotpAlgorithm } from '../ports/totp-algorithm';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * RFC 6238 written out from the RFC, for core's tests and as a reference for port authors
 * (production uses the otpauth adapter). Both run the same contract, whose expected codes come
 * from the RFC's test vectors and from Debian's oathtool.
 */
export class ReferenceTotp implements TotpAlgorithm {
  matchStep(input: { secret: string; code: string; at: Date; window: number }): number | null {
    const key = fromBase32(input.secret);
    const now = totpStepAt(input.at);
    for (let delta = -input.window; delta <= input.window; delta += 1) {
      if (hotp(key, now + delta) === input.code) return now + delta;
    }
    return null;
  }

  keyUri(input: { secret: string; issuer: string; account: string }): string {
    const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
    const query = new URLSearchParams({
      issuer: input.issuer,
      secret: input.secret,
      algorithm: 'SHA1',
      digits: String(TOTP_DIGITS),
      period: String(TOTP_PERIOD_SECONDS),
    });
    return `otpauth://totp/${label}?${query}`;
  }
}

/** RFC 4226 §5.3: HMAC-SHA-1 over the 8-byte counter, dynamic truncation, 6 digits. */
export function hotp(key: Buffer, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** TOTP_DIGITS).padStart(TOTP_DIGITS, '0');
}

/** RFC 4648 base32 (padding and case ignored). */
export function fromBase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.toUpperCase().replace(/=+$/, '')) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('invalid base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
