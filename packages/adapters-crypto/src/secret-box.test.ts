import { randomBytes } from 'node:crypto';
import { KeyEncryption } from './key-encryption';
import { MasterKeySecretBox } from './secret-box';

describe('MasterKeySecretBox', () => {
  const masterKey = randomBytes(32);
  const box = new MasterKeySecretBox({ masterKey });

  it('seals to something that is not the plaintext, and opens it again', () => {
    const secret = 'https://app.example.test/magic?token=ml_live_abc';
    const sealed = box.seal(secret, 'mail_outbox:1');
    expect(sealed).not.toContain('ml_live_abc');
    expect(sealed).not.toContain('app.example.test');
    expect(box.open(sealed, 'mail_outbox:1')).toBe(secret);
    expect(box.seal(secret, 'mail_outbox:1')).not.toBe(sealed);
  });

  it('refuses another context, another master key and tampering', () => {
    const sealed = box.seal('secret', 'row-1');
    expect(() => box.open(sealed, 'row-2')).toThrow(/decrypt/);
    expect(() => new MasterKeySecretBox({ masterKey: randomBytes(32) }).open(sealed, 'row-1')).toThrow(/decrypt/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'row-1')).toThrow(/decrypt/);
  });

  it('does not open a signing key sealed under the same master key (purpose separation)', () => {
    const signingKey = new KeyEncryption({ masterKey }).encrypt('private key', 'row-1');
    expect(() => box.open(signingKey, 'row-1')).toThrow(/decrypt/);
  });
});
