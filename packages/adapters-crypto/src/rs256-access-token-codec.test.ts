import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AccessTokenClaims, TenantScope } from '@svc/core';
import { FixedClock, InMemorySigningKeyStore, accessTokenCodecContract } from '@svc/core/testing';
import { KeyEncryption } from './key-encryption';
import { RsaSigningKeyFactory } from './rsa-signing-key-factory';
import { isCanonicalBase64Url, Rs256AccessTokenCodec } from './rs256-access-token-codec';

const encryption = new KeyEncryption({ masterKey: Buffer.alloc(32, 7) });
const factory = new RsaSigningKeyFactory({ encryption });

// The contract rotates through the store and expects the next token to use the new key at once.
accessTokenCodecContract('Rs256AccessTokenCodec + RsaSigningKeyFactory', async () => {
  const signingKeys = new InMemorySigningKeyStore();
  return { codec: new Rs256AccessTokenCodec({ signingKeys, encryption, currentKeyCacheSeconds: 0 }), factory, signingKeys };
});
accessTokenCodecContract('Rs256AccessTokenCodec signing on the thread pool', async () => {
  const signingKeys = new InMemorySigningKeyStore();
  return { codec: new Rs256AccessTokenCodec({ signingKeys, encryption, currentKeyCacheSeconds: 0, signOnThreadPool: true }), factory, signingKeys };
});

describe('where the signature is computed', () => {
  const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
  const claims = { iss: 'https://auth.example.test', sub: 'u-1', aud: 'p-1', env: 'production', sid: 's-1', email: 'a@example.test', role: 'user', iat: 1, exp: 2, jti: 'j' } as const;

  /** How many of 40 signs started together had finished when the event loop next reached its check phase. */
  async function finishedBeforeTheLoopTurned(signOnThreadPool: boolean): Promise<number> {
    const signingKeys = new InMemorySigningKeyStore();
    await signingKeys.rotate(scope, await factory.generate(scope, new Date()));
    const codec = new Rs256AccessTokenCodec({ signingKeys, encryption, signOnThreadPool });
    await codec.sign(scope, claims); // the key is imported and cached
    let finished = 0;
    const turned = new Promise<number>((resolve) => setImmediate(() => resolve(finished)));
    const tokens = await Promise.all(Array.from({ length: 40 }, () => codec.sign(scope, claims).then((token) => ((finished += 1), token))));
    const key = (await signingKeys.current(scope))!;
    for (const token of tokens) {
      const [header, payload, signature] = token.split('.');
      expect(verify('sha256', Buffer.from(`${header}.${payload}`), key.publicKeyPem, Buffer.from(signature, 'base64url'))).toBe(true);
    }
    return turned;
  }

  it('is the event loop by default: 40 signs hold it until the last is done', async () => {
    expect(await finishedBeforeTheLoopTurned(false)).toBe(40);
  });

  it("is libuv's pool with signOnThreadPool: the event loop turns while they are computed", async () => {
    // About 0.7 ms of CPU each on four pool threads: far from all 40 are done when the loop turns.
    expect(await finishedBeforeTheLoopTurned(true)).toBeLessThan(40);
  });
});

describe('Rs256AccessTokenCodec', () => {
  const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
  const clock = new FixedClock();
  const signingKeys = new InMemorySigningKeyStore();
  const codec = new Rs256AccessTokenCodec({ signingKeys, encryption, clock });
  const claims: AccessTokenClaims = {
    iss: 'https://auth.example.test',
    sub: 'u-1',
    aud: scope.projectId,
    env: 'production',
    sid: 's-1',
    email: 'ada@example.test',
    role: 'user',
    iat: 1_767_225_600,
    exp: 1_767_226_500,
    jti: 'j-1',
  };
  beforeAll(async () => {
    await signingKeys.rotate(scope, await factory.generate(scope, clock.now()));
  });
  const kidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid;

  it('makes RSA-2048 keys with an RFC 7638 kid and a private key that is not stored in clear', async () => {
    const key = (await signingKeys.current(scope))!;
    expect(createPublicKey(key.publicKeyPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(key.encryptedPrivateKey.startsWith('v1.')).toBe(true);
    expect(key.encryptedPrivateKey).not.toContain('PRIVATE KEY');
    expect(() => createPrivateKey(key.encryptedPrivateKey)).toThrow();
  });

  it('produces tokens that jose accepts (jwtVerify, importSPKI, RS256 only), kid = its thumbprint', async () => {
    const token = await codec.sign(scope, claims);
    const key = (await signingKeys.current(scope))!;
    const verified = await verifyWithJose(token, key.publicKeyPem);
    expect(verified.payload).toEqual(claims);
    expect(verified.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: key.kid });
    expect(verified.thumbprint).toBe(key.kid); // the kid is the RFC 7638 thumbprint
  });

  it('produces tokens that node:crypto accepts through a JWK round trip', async () => {
    const token = await codec.sign(scope, claims);
    const key = (await signingKeys.current(scope))!;
    const jwk = createPublicKey(key.publicKeyPem).export({ format: 'jwk' }) as JsonWebKey;
    const [header, payload, signature] = token.split('.');
    const ok = verify('sha256', Buffer.from(`${header}.${payload}`), createPublicKey({ key: jwk, format: 'jwk' }), Buffer.from(signature, 'base64url'));
    expect(ok).toBe(true);
    expect(JSON.parse(Buffer.from(payload, 'base64url').toString())).toEqual(claims);
  });

  it('picks up a rotation made elsewhere once the current-key cache expires', async () => {
    const before = await codec.sign(scope, claims);
    await signingKeys.rotate(scope, await factory.generate(scope, clock.now()));
    const newKid = (await signingKeys.current(scope))!.kid;
    clock.advance(5);
    expect(kidOf(await codec.sign(scope, claims))).toBe(kidOf(before));
    clock.advance(6);
    const after = await codec.sign(scope, claims);
    expect(kidOf(after)).toBe(newKid);
    expect(await codec.decode(scope, before)).toEqual(claims);
    expect(await codec.decode(scope, after)).toEqual(claims);
  });

  it("signs with the new key at once when told to forget the project's current keys (a rotation's notice)", async () => {
    const before = kidOf(await codec.sign(scope, claims));
    const other: TenantScope = { projectId: 'p-2', environment: 'production' };
    await signingKeys.rotate(other, await factory.generate(other, clock.now()));
    const otherKid = kidOf(await codec.sign(other, claims));
    await signingKeys.rotate(scope, await factory.generate(scope, clock.now()));
    await signingKeys.rotate(other, await factory.generate(other, clock.now()));
    expect(kidOf(await codec.sign(scope, claims))).toBe(before);
    codec.forgetCurrentKeys('p-1');
    expect(kidOf(await codec.sign(scope, claims))).toBe((await signingKeys.current(scope))!.kid);
    // Only that project's: another project's cached key stays until its own notice.
    expect(kidOf(await codec.sign(other, claims))).toBe(otherKid);
    codec.forgetCurrentKeys(null);
    expect(kidOf(await codec.sign(other, claims))).toBe((await signingKeys.current(other))!.kid);
  });

  it('refuses to sign with a key encrypted under another master key', async () => {
    const other = { projectId: 'p-2', environment: 'sandbox' } as const;
    const foreign = new RsaSigningKeyFactory({ encryption: new KeyEncryption({ masterKey: Buffer.alloc(32, 8) }) });
    await signingKeys.rotate(other, await foreign.generate(other, clock.now()));
    await expect(codec.sign(other, { ...claims, aud: 'p-2', env: 'sandbox' })).rejects.toThrow(/master key/);
  });

  it('rejects an alg header that is only almost RS256, and a crit header', async () => {
    const [, payload, signature] = (await codec.sign(scope, claims)).split('.');
    const kid = (await signingKeys.current(scope))!.kid;
    for (const header of [
      { alg: 'rs256', kid },
      { alg: 'RS384', kid },
      { alg: 'RS256', kid, typ: 'at+jwt' },
      { alg: 'RS256', kid, crit: ['x'] },
    ]) {
      const forged = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${payload}.${signature}`;
      expect(await codec.decode(scope, forged)).toBeNull();
    }
  });
});

describe('Rs256AccessTokenCodec remembering verified tokens', () => {
  const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
  const signingKeys = new InMemorySigningKeyStore();
  beforeAll(async () => {
    await signingKeys.rotate(scope, await factory.generate(scope, new FixedClock().now()));
  });
  /** Claims issued at the clock's start (2026-01-01), valid for 900 s. */
  const claimsNumbered = (n: number): AccessTokenClaims => ({
    iss: 'https://auth.example.test',
    sub: `u-${n}`,
    aud: scope.projectId,
    env: 'production',
    sid: `s-${n}`,
    email: 'ada@example.test',
    role: 'user',
    iat: 1_767_225_600,
    exp: 1_767_226_500,
    jti: `j-${n}`,
  });
  const setUp = (verifiedTokens?: number) => {
    const clock = new FixedClock();
    return { clock, codec: new Rs256AccessTokenCodec({ signingKeys, encryption, clock, verifiedTokens }) };
  };

  it('answers a token presented again from memory: the same frozen payload, nothing verified again', async () => {
    const { codec } = setUp();
    const token = await codec.sign(scope, claimsNumbered(1));
    const first = await codec.decode(scope, token);
    const second = await codec.decode(scope, token);
    expect(first).toEqual(claimsNumbered(1));
    // A verify parses the payload anew; the very same object means it came from memory.
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(codec.verifiedTokenCount).toBe(1);
  });

  it('forgets a token at its exp, and verifies it in full after that (its expiry is judged by the caller)', async () => {
    const { codec, clock } = setUp();
    const token = await codec.sign(scope, claimsNumbered(2));
    const first = await codec.decode(scope, token);
    clock.advance(899);
    expect(await codec.decode(scope, token)).toBe(first);
    clock.advance(1);
    const after = await codec.decode(scope, token);
    expect(after).toEqual(claimsNumbered(2));
    expect(after).not.toBe(first);
    // Past its exp a token takes no place.
    expect(codec.verifiedTokenCount).toBe(0);
  });

  it('drops the first remembered tokens once past their exp when it remembers another', async () => {
    const { codec, clock } = setUp();
    const early = await codec.sign(scope, claimsNumbered(9));
    await codec.decode(scope, early);
    clock.advance(600);
    const later = await codec.sign(scope, { ...claimsNumbered(10), iat: 1_767_226_200, exp: 1_767_227_100 });
    await codec.decode(scope, later);
    expect(codec.verifiedTokenCount).toBe(2);
    clock.advance(300);
    // The first is past its exp: remembering a third drops it, never looked up again.
    await codec.decode(scope, await codec.sign(scope, { ...claimsNumbered(11), iat: 1_767_226_500, exp: 1_767_227_400 }));
    expect(codec.verifiedTokenCount).toBe(2);
  });

  it('does not remember a token whose exp has passed or is not a number', async () => {
    const { codec } = setUp();
    const expired = await codec.sign(scope, { ...claimsNumbered(3), exp: 1_767_225_600 });
    const noExp = await codec.sign(scope, { ...claimsNumbered(3), exp: 'later' } as unknown as AccessTokenClaims);
    expect(await codec.decode(scope, expired)).not.toBeNull();
    expect(await codec.decode(scope, noExp)).not.toBeNull();
    expect(codec.verifiedTokenCount).toBe(0);
  });

  it('keeps at most `verifiedTokens`, dropping the first remembered', async () => {
    const { codec } = setUp(2);
    const tokens = await Promise.all([4, 5, 6].map((n) => codec.sign(scope, claimsNumbered(n))));
    const payloads = [];
    for (const token of tokens) payloads.push(await codec.decode(scope, token));
    expect(codec.verifiedTokenCount).toBe(2);
    expect(await codec.decode(scope, tokens[2])).toBe(payloads[2]);
    expect(await codec.decode(scope, tokens[1])).toBe(payloads[1]);
    // The first was dropped: verified again (a new object), and it takes the oldest place in turn.
    const again = await codec.decode(scope, tokens[0]);
    expect(again).toEqual(payloads[0]);
    expect(again).not.toBe(payloads[0]);
    expect(codec.verifiedTokenCount).toBe(2);
    expect(await codec.decode(scope, tokens[1])).not.toBe(payloads[1]);
  });

  it('remembers nothing with verifiedTokens: 0, and refuses a limit that is not a whole number', async () => {
    const { codec } = setUp(0);
    const token = await codec.sign(scope, claimsNumbered(7));
    const first = await codec.decode(scope, token);
    expect(await codec.decode(scope, token)).not.toBe(first);
    expect(await codec.decode(scope, token)).toEqual(first);
    expect(codec.verifiedTokenCount).toBe(0);
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => setUp(bad)).toThrow(RangeError);
  });

  it('does not remember a failure: a forged token is refused each time, and the genuine one still decodes', async () => {
    const { codec } = setUp();
    const token = await codec.sign(scope, claimsNumbered(8));
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claimsNumbered(8), role: 'admin' })).toString('base64url')}.${signature}`;
    expect(await codec.decode(scope, forged)).toBeNull();
    expect(await codec.decode(scope, forged)).toBeNull();
    expect(codec.verifiedTokenCount).toBe(0);
    expect(await codec.decode(scope, `${header}.${payload}.${signature}`)).toEqual(claimsNumbered(8));
    expect(codec.verifiedTokenCount).toBe(1);
  });
});

describe('isCanonicalBase64Url', () => {
  /** The check it replaced, as the reference: decode with Buffer, encode again, compare. */
  const reference = (segment: string) => /^[A-Za-z0-9_-]+$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  // Padding, the other base64 alphabet's two, the JWS separator, whitespace, a NUL and non-ASCII
  // (U+0141 and U+0161 end in the bytes of 'A' and 'a').
  const characters = [...alphabet, '=', '+', '/', '.', ' ', '\n', '\0', 'é', '\u0141', '\u0161', '\u{1F600}'];
  /** Every input where the two checks disagree, so that a failure names them. */
  const disagreements = (inputs: Iterable<string>) => [...inputs].filter((input) => isCanonicalBase64Url(input) !== reference(input));

  it('agrees with re-encoding on every string of up to three characters (with illegal ones)', () => {
    function* upToThree() {
      yield '';
      for (const a of characters) {
        yield a;
        for (const b of characters) {
          yield a + b;
          for (const c of characters) yield a + b + c;
        }
      }
    }
    let accepted = 0;
    for (const input of upToThree()) if (reference(input)) accepted += 1;
    // 64 x 4 canonical two-character strings (four last characters leave the bits after the byte zero),
    // 64 x 64 x 16 three-character ones: the enumeration reaches both kinds.
    expect(accepted).toBe(64 * 4 + 64 * 64 * 16);
    expect(disagreements(upToThree())).toEqual([]);
  });

  it('agrees on every last two characters after prefixes of each length modulo 4', () => {
    function* endings() {
      for (const prefix of ['', 'e', 'ey', 'eyJ', 'eyJh', 'eyJhb', 'eyJhbG', 'eyJhbGc']) for (const a of characters) for (const b of characters) yield prefix + a + b;
    }
    expect(disagreements(endings())).toEqual([]);
  });

  it("agrees on a real token's segments with each character replaced, removed, doubled, or padding appended", async () => {
    const scope: TenantScope = { projectId: 'p-1', environment: 'production' };
    const signingKeys = new InMemorySigningKeyStore();
    await signingKeys.rotate(scope, await factory.generate(scope, new Date()));
    const claims: AccessTokenClaims = { iss: 'https://auth.example.test', sub: 'u-1', aud: 'p-1', env: 'production', sid: 's-1', email: 'ada@example.test', role: 'user', iat: 1, exp: 2, jti: 'j-1' };
    const token = await new Rs256AccessTokenCodec({ signingKeys, encryption }).sign(scope, claims);
    function* perturbed() {
      for (const segment of token.split('.')) {
        yield segment;
        for (const pad of ['=', '==', '===']) yield segment + pad;
        for (let i = 0; i < segment.length; i += 1) {
          yield segment.slice(0, i) + segment.slice(i + 1);
          yield segment.slice(0, i) + segment[i] + segment.slice(i);
          for (const c of characters) yield segment.slice(0, i) + c + segment.slice(i + 1);
        }
      }
    }
    const inputs = [...perturbed()];
    expect(inputs.filter(reference).length).toBeGreaterThan(inputs.length / 2);
    expect(inputs.filter((input) => !reference(input)).length).toBeGreaterThan(1000);
    expect(disagreements(inputs)).toEqual([]);
  });
});

/**
 * jose 6 is ESM-only and jest runs CommonJS without --experimental-vm-modules, where `import('jose')`
 * fails; so jose verifies in a child node process (the package dir, where jose resolves).
 */
async function verifyWithJose(token: string, publicKeyPem: string): Promise<{ payload: unknown; protectedHeader: unknown; thumbprint: string }> {
  const script = `
    import { calculateJwkThumbprint, exportJWK, importSPKI, jwtVerify } from 'jose';
    const [token, pem] = process.argv.slice(1);
    const key = await importSPKI(pem, 'RS256', { extractable: true });
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      algorithms: ['RS256'], currentDate: new Date(payload0(token).iat * 1000),
    });
    const thumbprint = await calculateJwkThumbprint(await exportJWK(key));
    process.stdout.write(JSON.stringify({ payload, protectedHeader, thumbprint }));
    function payload0(t) { return JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()); }
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, '--', token, publicKeyPem], {
    cwd: join(__dirname, '..'),
  });
  return JSON.parse(stdout);
}
