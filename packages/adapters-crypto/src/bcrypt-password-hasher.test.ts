import { passwordHasherContract } from '@svc/core/testing';
import { BcryptPasswordHasher } from './bcrypt-password-hasher';

// Cost 4 keeps the suite fast; production uses 12 (docs/security.md#passwords).
passwordHasherContract('BcryptPasswordHasher', async () => new BcryptPasswordHasher({ cost: 4 }));
passwordHasherContract('BcryptPasswordHasher on low-priority threads', async () => new BcryptPasswordHasher({ cost: 4, lowPriorityThreads: true }));

describe('BcryptPasswordHasher', () => {
  const hasher = new BcryptPasswordHasher({ cost: 4 });

  it('writes a standard $2b$ hash at the configured cost', async () => {
    expect(await hasher.hash('password')).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
  });

  it('verifies hashes made at another cost (the cost is read from the hash)', async () => {
    const hash = await new BcryptPasswordHasher({ cost: 5 }).hash('password');
    expect(hash.startsWith('$2b$05$')).toBe(true);
    expect(await hasher.verify('password', hash)).toBe(true);
  });

  it('reads and writes the same hashes on low-priority threads as on the libuv pool', async () => {
    const threaded = new BcryptPasswordHasher({ cost: 4, lowPriorityThreads: true });
    const many = await Promise.all(Array.from({ length: 6 }, (_, i) => threaded.hash(`password-${i}`)));
    for (const [i, hash] of many.entries()) {
      expect(hash).toMatch(/^\$2b\$04\$/);
      expect(await hasher.verify(`password-${i}`, hash)).toBe(true);
      expect(await threaded.verify(`password-${i + 1}`, hash)).toBe(false);
    }
    expect(await threaded.verify('password', await hasher.hash('password'))).toBe(true);
    expect(await threaded.verify('password', `$2b$04$${'.'.repeat(53)}`)).toBe(false);
  });

  it('rejects a cost outside 4..31', () => {
    for (const cost of [3, 32, 10.5, Number.NaN]) expect(() => new BcryptPasswordHasher({ cost })).toThrow(RangeError);
  });
});
