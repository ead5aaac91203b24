import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { sameScope, type TenantScope } from '../domain/environment';
import type { SigningKeyRecord } from '../domain/signing-key';
import type { AccessTokenClaims } from '../domain/tokens';
import type { AccessTokenCodec, PublicJwk, SigningKeyFactory } from '../ports/access-token-codec';
import type { SigningKeyStore } from '../ports/signing-key-store';

// node:crypto is used for pure computation only (key generation, RSA sign/verify): no I/O.

/** Marks the fake's "encryption" so the fake codec refuses keys made by a real factory. */
const FAKE_WRAP_PREFIX = 'fake-unencrypted.';

/**
 * Signing keys for core unit tests. NOT for production: the keys are RSA-1024 (fast to generate,
 * too weak for real use) and the private key is only base64-wrapped, not encrypted at rest.
 */
export class FakeSigningKeyFactory implements SigningKeyFactory {
  async generate(scope: TenantScope, createdAt: Date): Promise<SigningKeyRecord> {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return {
      kid: globalThis.crypto.randomUUID(),
      projectId: scope.projectId,
      environment: scope.environment,
      publicKeyPem: publicKey,
      encryptedPrivateKey: FAKE_WRAP_PREFIX + Buffer.from(privateKey, 'utf8').toString('base64'),
      createdAt,
      retiredAt: null,
    };
  }
}

/**
 * An RS256 JWT codec for core unit tests, paired with {@link FakeSigningKeyFactory}. NOT for
 * production (no key caching, fake key wrapping), but it verifies as strictly as the real one:
 * alg pinned to RS256, kid looked up only within the scope, signature checked, never throws.
 */
export class FakeAccessTokenCodec implements AccessTokenCodec {
  constructor(private readonly signingKeys: SigningKeyStore) {}

  async sign(scope: TenantScope, claims: AccessTokenClaims): Promise<string> {
    const key = await this.signingKeys.current(scope);
    if (!key) throw new Error('No signing key for this scope.');
    const header = encodeJson({ alg: 'RS256', typ: 'JWT', kid: key.kid });
    const input = `${header}.${encodeJson(claims)}`;
    const signature = sign('sha256', Buffer.from(input), createPrivateKey(unwrapPrivateKey(key)));
    return `${input}.${signature.toString('base64url')}`;
  }

  async decode(scope: TenantScope, token: string): Promise<Record<string, unknown> | null> {
    try {
      const parts = typeof token === 'string' ? token.split('.') : [];
      if (parts.length !== 3 || !parts.every(isCanonicalBase64Url)) return null;
      const header = decodeJson(parts[0]);
      if (header?.alg !== 'RS256' || typeof header.kid !== 'string') return null;
      if (header.typ !== undefined && header.typ !== 'JWT') return null;
      // The key comes from the tenant's own keys; a kid of another scope is simply not found.
      const key = await this.signingKeys.findByKid(scope, header.kid);
      if (!key || !sameScope(key, scope)) return null;
      const input = Buffer.from(`${parts[0]}.${parts[1]}`);
      if (!verify('sha256', input, key.publicKeyPem, Buffer.from(parts[2], 'base64url'))) return null;
      return decodeJson(parts[1]);
    } catch {
      return null;
    }
  }

  toPublicJwk(key: SigningKeyRecord): PublicJwk {
    const jwk = createPublicKey(key.publicKeyPem).export({ format: 'jwk' });
    // Only the public members are copied, so nothing private can ever leak into JWKS.
    return { kty: 'RSA', n: jwk.n, e: jwk.e, kid: key.kid, alg: 'RS256', use: 'sig' };
  }
}

function unwrapPrivateKey(key: SigningKeyRecord): string {
  if (!key.encryptedPrivateKey.startsWith(FAKE_WRAP_PREFIX)) {
    throw new Error('FakeAccessTokenCodec only reads keys made by FakeSigningKeyFactory.');
  }
  return Buffer.from(key.encryptedPrivateKey.slice(FAKE_WRAP_PREFIX.length), 'base64').toString('utf8');
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function decodeJson(segment: string): Record<string, unknown> | null {
  const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** Buffer's decoder skips junk; requiring the canonical form rejects look-alike tokens. */
function isCanonicalBase64Url(segment: string): boolean {
  return /^[A-Za-z0-9_-]+$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
}
