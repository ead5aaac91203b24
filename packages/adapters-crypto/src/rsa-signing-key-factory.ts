import { createHash, createPublicKey, generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { SigningKeyFactory, SigningKeyRecord, TenantScope } from '@svc/core';
import type { KeyEncryption } from './key-encryption';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface RsaSigningKeyFactoryOptions {
  /** Encrypts the private key before it leaves this factory (docs/security.md: encrypted at rest). */
  encryption: KeyEncryption;
}

/**
 * Makes RSA-2048 signing keys (docs/security.md). Generation uses the async `generateKeyPair`, which
 * runs off the event loop (an RSA-2048 pair takes ~100-300 ms of CPU).
 * The kid is the RFC 7638 JWK thumbprint: derived from the public key, hence unique per key.
 */
export class RsaSigningKeyFactory implements SigningKeyFactory {
  constructor(private readonly options: RsaSigningKeyFactoryOptions) {}

  async generate(scope: TenantScope, createdAt: Date): Promise<SigningKeyRecord> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
      modulusLength: 2048,
      publicExponent: 0x10001,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const kid = rsaThumbprint(publicKey);
    const record = { kid, projectId: scope.projectId, environment: scope.environment };
    return {
      ...record,
      publicKeyPem: publicKey,
      encryptedPrivateKey: this.options.encryption.encrypt(privateKey, signingKeyContext(record)),
      createdAt,
      retiredAt: null,
    };
  }
}

/**
 * Associated data binding an encrypted private key to its record: a ciphertext copied into
 * another scope's row (or under another kid) fails to decrypt instead of signing for that scope.
 */
export function signingKeyContext(key: Pick<SigningKeyRecord, 'kid' | 'projectId' | 'environment'>): string {
  return JSON.stringify(['svc-signing-key', key.projectId, key.environment, key.kid]);
}

/** RFC 7638 thumbprint of an RSA public key: SHA-256 of `{"e","kty","n"}` in that order, base64url. */
export function rsaThumbprint(publicKeyPem: string): string {
  const { e, n } = createPublicKey(publicKeyPem).export({ format: 'jwk' });
  const canonical = JSON.stringify({ e, kty: 'RSA', n });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}
