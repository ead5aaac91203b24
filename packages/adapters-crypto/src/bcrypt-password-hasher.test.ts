import { passwordHasherContract } from '@svc/core/testing';
import { BcryptPasswordHasher } from './bcrypt-password-hasher';

// Cost 4 keeps the suite fast; production uses 12 (DESIGN §4).
passwordHasherContract('BcryptPasswordHasher', async () => new BcryptPasswordHasher({ cost: 4 }));

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

  it('rejects a cost outside 4..31', () => {
    for (const cost of [3, 32, 10.5, Number.NaN]) expect(() => new BcryptPasswordHasher({ cost })).toThrow(RangeError);
  });
});
