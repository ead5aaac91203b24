import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12; // the GCM standard nonce size
const TAG_BYTES = 16;
// HKDF info: the derived key serves only this purpose, so the master key may be reused elsewhere.
const HKDF_INFO = 'svc signing-key encryption v1';

/** Thrown when a stored key cannot be decrypted: wrong master key, tampered or malformed data. */
export class KeyDecryptionError extends Error {
  constructor(reason: string) {
    super(`Cannot decrypt a signing key (${reason}). Is SVC's master key the one the key was encrypted with?`);
    this.name = 'KeyDecryptionError';
  }
}

export interface KeyEncryptionOptions {
  /** 32 bytes: raw, or as configured (64 hex characters, base64 or base64url). */
  masterKey: string | Uint8Array;
}

/**
 * Encrypts private signing keys at rest with AES-256-GCM (docs/security.md).
 * Format: `v1.<iv>.<tag>.<ciphertext>`, each part base64url; the version prefix lets a later
 * scheme coexist with stored v1 values. An optional context (e.g. the key's scope and kid) is
 * bound as associated data, so a ciphertext copied to another record does not decrypt.
 */
export class KeyEncryption {
  /**
   * A KeyObject, not the Buffer: Node 24 tells a Buffer key from a KeyObject by letting two native
   * checks throw a TypeError each (with its stack trace) on every cipher made with a Buffer, about
   * half of what a seal or an open costs there (bench/README.md, round 10).
   */
  private readonly key: KeyObject;

  constructor(options: KeyEncryptionOptions) {
    const master = typeof options.masterKey === 'string' ? parseMasterKey(options.masterKey) : Buffer.from(options.masterKey);
    if (master.length !== 32) throw new RangeError(`The master key must be 32 bytes, got ${master.length}.`);
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), HKDF_INFO, 32)));
  }

  encrypt(plaintext: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** @throws KeyDecryptionError on a wrong master key, a wrong context or tampered data. */
  decrypt(sealed: string, context = ''): string {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) throw new KeyDecryptionError('not a v1 encrypted key');
    const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new KeyDecryptionError('malformed value');
    // The tag length is pinned so a truncated tag cannot weaken authentication.
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new KeyDecryptionError('authentication failed: wrong master key or tampered data');
    }
  }
}

/** A 32-byte master key given as 64 hex characters, base64 or base64url (padding optional); null otherwise. */
export function decodeMasterKey(value: string): Buffer | null {
  const text = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=$/, ''), 'base64url');
    if (bytes.length === 32) return bytes;
  }
  return null;
}

/** Reads a master key as {@link decodeMasterKey} does, or throws. */
export function parseMasterKey(value: string): Buffer {
  const key = decodeMasterKey(value);
  if (!key) throw new RangeError('The master key must be 32 bytes given as 64 hex characters, base64 or base64url.');
  return key;
}
