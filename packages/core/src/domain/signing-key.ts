export interface SigningKeyRecord {
  kid: string;
  projectId: string;
  environment: import('./environment').Environment;
  publicKeyPem: string;
  /** Private key encrypted at rest by the crypto adapter; core never reads it. */
  encryptedPrivateKey: string;
  createdAt: Date;
  /** Set when a newer key replaced this one; the key stays published until its tokens expired. */
  retiredAt: Date | null;
}
