import type { SecretBox } from '@svc/core';
import { KeyEncryption, type KeyEncryptionOptions } from './key-encryption';

/**
 * The SecretBox port on AES-256-GCM under the master key (the same cipher and format as signing
 * keys at rest, `v1.<iv>.<tag>.<ciphertext>`). Every value is bound to a purpose prefix plus the
 * caller's context as associated data, so neither a signing key nor a value sealed for another
 * row opens here, even though one master key serves both.
 */
export class MasterKeySecretBox implements SecretBox {
  private readonly cipher: KeyEncryption;

  constructor(options: KeyEncryptionOptions) {
    this.cipher = new KeyEncryption(options);
  }

  seal(plaintext: string, context = ''): string {
    return this.cipher.encrypt(plaintext, associatedData(context));
  }

  /** @throws KeyDecryptionError on a wrong master key, another context or tampered data. */
  open(sealed: string, context = ''): string {
    return this.cipher.decrypt(sealed, associatedData(context));
  }
}

function associatedData(context: string): string {
  return `svc secret-box v1\u0000${context}`;
}
