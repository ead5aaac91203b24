import { randomBytes } from 'node:crypto';
import { KeyDecryptionError, KeyEncryption, parseMasterKey } from './key-encryption';

const PEM = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';

describe('KeyEncryption', () => {
  const masterKey = randomBytes(32);
  const encryption = new KeyEncryption({ masterKey: masterKey.toString('base64') });

  it('round-trips, in the v1.<iv>.<tag>.<ciphertext> format, with a fresh IV each time', () => {
    const sealed = encryption.encrypt(PEM, 'ctx');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('PRIVATE KEY');
    expect(encryption.encrypt(PEM, 'ctx')).not.toBe(sealed);
    expect(encryption.decrypt(sealed, 'ctx')).toBe(PEM);
  });

  it('accepts the master key as raw bytes, hex, base64 or base64url', () => {
    const sealed = encryption.encrypt(PEM);
    for (const form of [masterKey, masterKey.toString('hex'), masterKey.toString('base64url')]) {
      expect(new KeyEncryption({ masterKey: form }).decrypt(sealed)).toBe(PEM);
    }
  });

  it('fails clearly with a wrong master key', () => {
    const other = new KeyEncryption({ masterKey: randomBytes(32) });
    expect(() => other.decrypt(encryption.encrypt(PEM))).toThrow(KeyDecryptionError);
    expect(() => other.decrypt(encryption.encrypt(PEM))).toThrow(/master key/);
  });

  it('fails on a tampered ciphertext, tag or IV, or another context', () => {
    const sealed = encryption.encrypt(PEM, 'scope-a');
    const parts = sealed.split('.');
    for (const index of [1, 2, 3]) {
      const tampered = [...parts];
      tampered[index] = (tampered[index][0] === 'A' ? 'B' : 'A') + tampered[index].slice(1);
      expect(() => encryption.decrypt(tampered.join('.'), 'scope-a')).toThrow(KeyDecryptionError);
    }
    expect(() => encryption.decrypt(sealed, 'scope-b')).toThrow(KeyDecryptionError);
  });

  it('rejects malformed values and other versions', () => {
    const [, iv, tag, ciphertext] = encryption.encrypt(PEM).split('.');
    for (const bad of ['', PEM, `v2.${iv}.${tag}.${ciphertext}`, `v1.${iv}.${ciphertext}`, `v1.${iv}.${tag.slice(4)}.${ciphertext}`]) {
      expect(() => encryption.decrypt(bad)).toThrow(KeyDecryptionError);
    }
  });

  it('rejects master keys that are not 32 bytes', () => {
    expect(() => new KeyEncryption({ masterKey: randomBytes(16) })).toThrow(RangeError);
    expect(() => parseMasterKey('too-short')).toThrow(RangeError);
    expect(() => parseMasterKey(randomBytes(31).toString('hex'))).toThrow(RangeError);
  });
});
