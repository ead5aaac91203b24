import { createHmac, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import type { Environment, TenantScope } from '../domain/environment';
import type { AccessTokenClaims } from '../domain/tokens';
import type { AccessTokenCodec, SigningKeyFactory } from '../ports/access-token-codec';
import type { SigningKeyStore } from '../ports/signing-key-store';

/** What {@link accessTokenCodecContract} runs against. */
export interface AccessTokenCodecFixture {
  codec: AccessTokenCodec;
  factory: SigningKeyFactory;
  /** The store the codec reads keys from. */
  signingKeys: SigningKeyStore;
}

/**
 * The behaviour every {@link AccessTokenCodec} (with its {@link SigningKeyFactory}) must have
 * (docs/security.md#access-tokens). Each test uses its own random project id, so a shared database is fine.
 * The codec must see a rotation made through `signingKeys` at once: build it with any cache of
 * the current key disabled. Uses the jest globals, so it only runs under jest.
 */
export function accessTokenCodecContract(label: string, make: () => Promise<AccessTokenCodecFixture>): void {
  describe(`AccessTokenCodec contract: ${label}`, () => {
    let f: AccessTokenCodecFixture;
    beforeAll(async () => {
      f = await make();
    });

    const base = Date.now();
    async function newScope(environment: Environment = 'production', projectId = uuid()): Promise<TenantScope> {
      const scope = { projectId, environment };
      await f.signingKeys.rotate(scope, await f.factory.generate(scope, new Date(base)));
      return scope;
    }
    async function currentKid(scope: TenantScope): Promise<string> {
      return (await f.signingKeys.current(scope))!.kid;
    }

    it('sign then decode round-trips the claims', async () => {
      const scope = await newScope();
      const claims = claimsFor(scope);
      expect(await f.codec.decode(scope, await f.codec.sign(scope, claims))).toEqual(claims);
    });

    it('writes a header with alg RS256, typ JWT and the current kid', async () => {
      const scope = await newScope('sandbox');
      const token = await f.codec.sign(scope, claimsFor(scope));
      expect(token.split('.')).toHaveLength(3);
      expect(readHeader(token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: await currentKid(scope) });
    });

    it('decodes the same token the same way again', async () => {
      const scope = await newScope();
      const claims = claimsFor(scope);
      const token = await f.codec.sign(scope, claims);
      expect(await f.codec.decode(scope, token)).toEqual(claims);
      expect(await f.codec.decode(scope, token)).toEqual(claims);
    });

    it('does not decode in another scope (other project, or same project other environment), also once decoded in its own', async () => {
      const scope = await newScope('production');
      const token = await f.codec.sign(scope, claimsFor(scope));
      // A codec that remembers verified tokens must remember them for their scope only.
      expect(await f.codec.decode(scope, token)).not.toBeNull();
      const otherProject = await newScope('production');
      const otherEnvironment = await newScope('sandbox', scope.projectId);
      const withoutKeys: TenantScope = { projectId: uuid(), environment: 'production' };
      for (const other of [otherProject, otherEnvironment, withoutKeys]) {
        expect(await f.codec.decode(other, token)).toBeNull();
      }
    });

    it('after a rotation, old tokens still decode and new ones carry the new kid', async () => {
      const scope = await newScope();
      const oldKid = await currentKid(scope);
      const oldToken = await f.codec.sign(scope, claimsFor(scope));
      await f.signingKeys.rotate(scope, await f.factory.generate(scope, new Date(base + 1000)));
      const newToken = await f.codec.sign(scope, claimsFor(scope));
      expect(readHeader(newToken).kid).toBe(await currentKid(scope));
      expect(readHeader(newToken).kid).not.toBe(oldKid);
      expect(await f.codec.decode(scope, oldToken)).not.toBeNull();
      expect(await f.codec.decode(scope, newToken)).not.toBeNull();
    });

    describe('rejects (null, never throws), with the genuine token decoded first', () => {
      let scope: TenantScope;
      let token: string;
      let kid: string;
      beforeAll(async () => {
        scope = await newScope();
        token = await f.codec.sign(scope, claimsFor(scope));
        kid = await currentKid(scope);
        // A codec that remembers verified tokens must still check every other string in full.
        expect(await f.codec.decode(scope, token)).not.toBeNull();
      });
      const rejects = async (forged: string) => expect(await f.codec.decode(scope, forged)).toBeNull();
      const parts = () => token.split('.');

      it('an `alg: none` token', async () => {
        const [, payload, signature] = parts();
        await rejects(`${encodeJson({ alg: 'none', typ: 'JWT', kid })}.${payload}.`);
        await rejects(`${encodeJson({ alg: 'none', typ: 'JWT', kid })}.${payload}.${signature}`);
      });

      it('an HS256 token signed with the public key PEM as the HMAC secret', async () => {
        const publicPem = (await f.signingKeys.current(scope))!.publicKeyPem;
        const input = `${encodeJson({ alg: 'HS256', typ: 'JWT', kid })}.${parts()[1]}`;
        await rejects(`${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`);
      });

      it('a token whose kid names a key of another scope', async () => {
        const other = await newScope();
        // Signed correctly with the other scope's key, even carrying this scope's claims.
        await rejects(await f.codec.sign(other, claimsFor(scope)));
      });

      it('an unknown kid', async () => {
        const [, payload, signature] = parts();
        await rejects(`${encodeJson({ alg: 'RS256', typ: 'JWT', kid: uuid() })}.${payload}.${signature}`);
        await rejects(`${encodeJson({ alg: 'RS256', typ: 'JWT' })}.${payload}.${signature}`);
      });

      it('a tampered payload', async () => {
        const [header, , signature] = parts();
        await rejects(`${header}.${encodeJson({ ...claimsFor(scope), role: 'admin' })}.${signature}`);
      });

      it('a tampered signature', async () => {
        const [header, payload, signature] = parts();
        // The first character carries 6 significant bits (the last one may carry padding bits).
        const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
        await rejects(`${header}.${payload}.${flipped}`);
        const another = (await f.codec.sign(scope, { ...claimsFor(scope), role: 'other' })).split('.')[2];
        await rejects(`${header}.${payload}.${another}`);
      });

      it('garbage strings', async () => {
        for (const garbage of ['', 'garbage', '.', '..', 'a.b.c', '%%.%%.%%', ` ${token}`, `${token} `]) {
          await rejects(garbage);
        }
      });

      it('a JWT with 2 or 4 segments', async () => {
        const [header, payload, signature] = parts();
        await rejects(`${header}.${payload}`);
        await rejects(`${header}.${payload}.${signature}.${signature}`);
        await rejects(`${token}.`);
      });

      it('a header that is not a JSON object', async () => {
        const [, payload, signature] = parts();
        for (const header of ['not json', '"RS256"', '[]', 'null']) {
          await rejects(`${Buffer.from(header).toString('base64url')}.${payload}.${signature}`);
        }
      });
    });

    it('toPublicJwk gives only public RSA members, and the JWK verifies a signed token', async () => {
      const scope = await newScope();
      const key = (await f.signingKeys.current(scope))!;
      const jwk = f.codec.toPublicJwk(key);
      expect(jwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: key.kid });
      expect(typeof jwk.n).toBe('string');
      expect(typeof jwk.e).toBe('string');
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) expect(jwk).not.toHaveProperty(member);

      const [header, payload, signature] = (await f.codec.sign(scope, claimsFor(scope))).split('.');
      const publicKey = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
      const data = Buffer.from(`${header}.${payload}`);
      expect(verify('sha256', data, publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    });
  });
}

function uuid(): string {
  return globalThis.crypto.randomUUID();
}

function claimsFor(scope: TenantScope): AccessTokenClaims {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: 'https://auth.example.test',
    sub: uuid(),
    aud: scope.projectId,
    env: scope.environment,
    sid: uuid(),
    email: 'ada@example.test',
    role: 'user',
    iat,
    exp: iat + 900,
    jti: uuid(),
  };
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function readHeader(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
}
