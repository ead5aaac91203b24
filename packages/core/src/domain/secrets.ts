import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// node:crypto is used only for pure computation (digests, HMAC); it performs no I/O and exists on
// every runtime that implements Node's API (Node, Bun, Deno), so core stays portable.

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Random bytes of every bearer secret: 256 bits (at least 128 are needed; docs/security.md). */
const BEARER_SECRET_BYTES = 32;
/** A bearer secret as written: its bytes in base64url, 43 characters. */
const BEARER_SECRET = /^[A-Za-z0-9_-]{43}$/;

/** A new bearer secret (tokens, codes, challenges, client secrets) from `random`. */
export function newBearerSecret(random: { bytes(length: number): Uint8Array }): string {
  return toBase64Url(random.bytes(BEARER_SECRET_BYTES));
}

/** True when `value` has the form {@link newBearerSecret} writes (a cheap refusal before any lookup). */
export function isBearerSecret(value: string): boolean {
  return BEARER_SECRET.test(value);
}

/** SHA-256 hex digest: the only form in which bearer secrets are stored (docs/security.md). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function hmacBase64Url(key: string, value: string): string {
  return createHmac('sha256', key).update(value, 'utf8').digest('base64url');
}

/** Constant-time string comparison (lengths are not secret). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
