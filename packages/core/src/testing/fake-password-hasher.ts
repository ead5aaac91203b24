import { createHash, timingSafeEqual } from 'node:crypto';
import type { PasswordHasher } from '../ports/password-hasher';

const PREFIX = 'fake-sha256';
const SALT_BYTES = 16;
// verifyDummy hashes against this fixed salt so it does the same work as verify.
const DUMMY_SALT = Buffer.alloc(SALT_BYTES, 0x5a);

/**
 * A fast, salted SHA-256 password hasher for core unit tests.
 *
 * NOT for production: SHA-256 is fast by design, which is exactly what a password hash must not
 * be. It keeps the port's contract (salted, every byte of the password counts, never throws on a
 * malformed hash) so use cases can be tested without paying bcrypt's cost.
 * Format: `fake-sha256$<salt base64url>$<sha256(salt || utf8(password)) base64url>`.
 */
export class FakePasswordHasher implements PasswordHasher {
  async hash(password: string): Promise<string> {
    const salt = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(SALT_BYTES)));
    return `${PREFIX}$${salt.toString('base64url')}$${digest(salt, password).toString('base64url')}`;
  }

  async verify(password: string, hash: string): Promise<boolean> {
    const parts = typeof hash === 'string' ? hash.split('$') : [];
    if (parts.length !== 3 || parts[0] !== PREFIX) return false;
    const salt = Buffer.from(parts[1], 'base64url');
    const expected = Buffer.from(parts[2], 'base64url');
    if (salt.length !== SALT_BYTES || expected.length !== 32) return false;
    return timingSafeEqual(digest(salt, password), expected);
  }

  async verifyDummy(password: string): Promise<false> {
    digest(DUMMY_SALT, password);
    return false;
  }
}

function digest(salt: Buffer, password: string): Buffer {
  // The whole UTF-8 encoding is hashed, so unlike bcrypt there is no 72-byte cut-off.
  return createHash('sha256').update(salt).update(password, 'utf8').digest();
}
