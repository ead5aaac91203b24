import type { PasswordHasher } from '../ports/password-hasher';

/**
 * The behaviour every {@link PasswordHasher} must have (docs/security.md#passwords). Call it from a `*.test.ts` of
 * the implementation: `passwordHasherContract('bcrypt', async () => new BcryptPasswordHasher(...))`.
 * Uses the jest globals, so it only runs under jest.
 */
export function passwordHasherContract(label: string, make: () => Promise<PasswordHasher>): void {
  describe(`PasswordHasher contract: ${label}`, () => {
    let hasher: PasswordHasher;
    beforeAll(async () => {
      hasher = await make();
    });

    it('is salted: the hash is not the password and two hashes of one password differ', async () => {
      const first = await hasher.hash('correct horse battery staple');
      const second = await hasher.hash('correct horse battery staple');
      expect(first).not.toBe('correct horse battery staple');
      expect(first).not.toContain('correct horse');
      expect(first).not.toBe(second);
      expect(await hasher.verify('correct horse battery staple', second)).toBe(true);
    });

    it('verifies the right password and rejects a wrong one', async () => {
      const hash = await hasher.hash('s3cret-Passw0rd');
      expect(await hasher.verify('s3cret-Passw0rd', hash)).toBe(true);
      expect(await hasher.verify('s3cret-passw0rd', hash)).toBe(false);
      expect(await hasher.verify('s3cret-Passw0rd ', hash)).toBe(false);
      expect(await hasher.verify('', hash)).toBe(false);
    });

    it('answers false, without throwing, for a malformed hash', async () => {
      const valid = await hasher.hash('password');
      const malformed = ['', 'garbage', '$', '$2b$04$', '$2b$99$abc', 'a$b$c', valid.slice(0, -5), `${valid}x`];
      for (const hash of malformed) {
        await expect(hasher.verify('password', hash)).resolves.toBe(false);
      }
    });

    // bcrypt reads only 72 bytes: without a pre-hash these pairs would both sign in (docs/security.md#passwords).
    const sharing72Bytes: Array<[string, string, string]> = [
      ['ASCII', `${'a'.repeat(72)}first`, `${'a'.repeat(72)}second`],
      ['2-byte UTF-8', `${'é'.repeat(36)}X`, `${'é'.repeat(36)}Y`],
      ['4-byte UTF-8', `${'🔑'.repeat(18)}1`, `${'🔑'.repeat(18)}2`],
      ['a character straddling byte 72', `a${'€'.repeat(24)}x`, `a${'€'.repeat(24)}y`],
    ];
    it.each(sharing72Bytes)('counts every byte (%s): passwords sharing their first 72 bytes', async (_, a, b) => {
      expect(Buffer.byteLength(a, 'utf8')).toBeGreaterThan(72);
      expect(Buffer.from(a, 'utf8').subarray(0, 72)).toEqual(Buffer.from(b, 'utf8').subarray(0, 72));
      const hash = await hasher.hash(a);
      expect(await hasher.verify(a, hash)).toBe(true);
      expect(await hasher.verify(b, hash)).toBe(false);
    });

    it('counts the bytes after a NUL character', async () => {
      const hash = await hasher.hash('abc\u0000def');
      expect(await hasher.verify('abc\u0000def', hash)).toBe(true);
      expect(await hasher.verify('abc\u0000xyz', hash)).toBe(false);
      expect(await hasher.verify('abc', hash)).toBe(false);
    });

    it('handles the empty password', async () => {
      const hash = await hasher.hash('');
      expect(await hasher.verify('', hash)).toBe(true);
      expect(await hasher.verify(' ', hash)).toBe(false);
    });

    it('handles unicode and long passwords', async () => {
      for (const password of ['pässwörd-密码-🔑', 'Ω'.repeat(300)]) {
        const hash = await hasher.hash(password);
        expect(await hasher.verify(password, hash)).toBe(true);
        expect(await hasher.verify(`${password}x`, hash)).toBe(false);
      }
    });

    it('verifyDummy resolves false', async () => {
      await expect(hasher.verifyDummy('any password')).resolves.toBe(false);
      await expect(hasher.verifyDummy('')).resolves.toBe(false);
    });
  });
}
