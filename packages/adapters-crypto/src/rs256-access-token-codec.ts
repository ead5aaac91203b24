import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { sameScope, systemClock, type AccessTokenClaims, type AccessTokenCodec, type Clock, type PublicJwk, type SigningKeyRecord, type SigningKeyStore, type TenantScope } from '@svc/core';
import type { KeyEncryption } from './key-encryption';
import { signingKeyContext } from './rsa-signing-key-factory';

/** Longer input is not a token of ours; refusing it bounds the work an attacker can ask for. */
const MAX_TOKEN_LENGTH = 8192;

export interface Rs256AccessTokenCodecOptions {
  signingKeys: SigningKeyStore;
  encryption: KeyEncryption;
  /**
   * How long a scope's current kid is reused at most before the store is asked again. A rotation
   * drops it at once through `forgetCurrentKeys` (the service calls it on the rotation's change
   * notice, on every instance); this bounds a notice that was lost. 0 asks on every sign. Default 10.
   */
  currentKeyCacheSeconds?: number;
  /**
   * Sign on libuv's thread pool instead of the event loop. An RSA-2048 sign takes about 0.7 ms of
   * CPU, the largest single cost of a refresh or a login's answer; on the pool the event loop
   * serves other requests meanwhile (bench/README.md, round 15). Only where nothing slow shares
   * the pool: a bcrypt hash on it takes hundreds of milliseconds, and a sign queued behind four of
   * them would wait that long. The API turns it on, since it hashes on threads of its own
   * (BcryptPasswordHasher's `lowPriorityThreads`). Default false: on the event loop.
   */
  signOnThreadPool?: boolean;
  /**
   * How many verified tokens `decode` remembers, so that a token presented again skips the RSA
   * verify (about a fifth of a `/me`'s CPU: bench/README.md, round 29). 0 verifies every time.
   * Default 4096: about 1.6 kB each for a token of 900 characters, 6.5 MB when full.
   */
  verifiedTokens?: number;
  /** Injected so tests can move time instead of sleeping. */
  clock?: Clock;
}

/** A token whose signature was verified: its payload, for as long as the token can be accepted. */
interface VerifiedToken {
  /** The scope it was verified for: it is answered from memory for that scope only. */
  scope: TenantScope;
  /** Frozen: every caller of `decode` is handed the same object. */
  payload: Readonly<Record<string, unknown>>;
  /** The token's `exp` in milliseconds: past it the entry is dropped (the caller judges the expiry, with its leeway). */
  expiresAtMs: number;
}

interface CurrentKey {
  projectId: string;
  privateKey: KeyObject;
  expiresAt: number;
  /** The token's header segment with its dot (alg, typ and the key's kid), encoded once per key. */
  headerSegment: string;
}

/**
 * RS256 access tokens with node:crypto (docs/security.md#access-tokens). A verify (~0.03 ms) runs
 * on the event loop, where it costs less than a trip to a thread; a sign (~0.7 ms) runs there too,
 * or on libuv's pool with `signOnThreadPool`. KeyObjects are imported once per (scope, kid) and
 * kept, since a kid's key never changes and is never deleted.
 *
 * For the same reason a signature, once verified, stays valid: whether a given token string is
 * signed by a given scope's key is a fact about its bytes, and no later event can change it. So
 * `decode` remembers the tokens it verified (`verifiedTokens`, first in, first out) until their
 * `exp`, and answers a token presented again from memory, for the same scope only. What is live
 * about a token (its expiry with the leeway, its session, its user) is judged by the callers on
 * every request, as before. Failures are not remembered: only a token this service signed can take
 * a place, so junk cannot push the real ones out.
 */
export class Rs256AccessTokenCodec implements AccessTokenCodec {
  private readonly signingKeys: SigningKeyStore;
  private readonly encryption: KeyEncryption;
  private readonly currentKeyCacheMs: number;
  private readonly clock: Clock;
  private readonly signature: (input: Buffer, key: KeyObject) => Buffer | Promise<Buffer>;
  private readonly currentKeys = new Map<string, CurrentKey>();
  private readonly privateKeys = new Map<string, KeyObject>();
  private readonly publicKeys = new Map<string, KeyObject>();
  private readonly verified = new Map<string, VerifiedToken>();
  private readonly verifiedLimit: number;
  /** Bumped by forgetCurrentKeys: a lookup that started before it does not keep its answer. */
  private generation = 0;

  constructor(options: Rs256AccessTokenCodecOptions) {
    this.signingKeys = options.signingKeys;
    this.encryption = options.encryption;
    this.currentKeyCacheMs = Math.max(0, options.currentKeyCacheSeconds ?? 10) * 1000;
    this.clock = options.clock ?? systemClock;
    this.verifiedLimit = options.verifiedTokens ?? 4096;
    if (!(Number.isInteger(this.verifiedLimit) && this.verifiedLimit >= 0)) throw new RangeError('verifiedTokens must be a whole number, 0 or more');
    this.signature = options.signOnThreadPool ? signOnPool : (input, key) => sign('sha256', input, key);
  }

  async sign(scope: TenantScope, claims: AccessTokenClaims): Promise<string> {
    const key = await this.currentKey(scope);
    const input = key.headerSegment + encodeJson(claims);
    const signature = await this.signature(Buffer.from(input), key.privateKey);
    return `${input}.${signature.toString('base64url')}`;
  }

  /**
   * Returns the payload, or null for anything but a well-formed RS256 JWT signed by a key of this
   * scope. Errors of the key store itself are not swallowed: an outage is not an invalid token.
   */
  async decode(scope: TenantScope, token: string): Promise<Record<string, unknown> | null> {
    const remembered = this.rememberedPayload(scope, token);
    if (remembered) return remembered;
    const parsed = parseToken(token);
    if (!parsed) return null;
    const publicKey = await this.publicKey(scope, parsed.kid);
    if (!publicKey) return null;
    let valid: boolean;
    try {
      valid = verify('sha256', Buffer.from(parsed.signingInput), publicKey, parsed.signature);
    } catch {
      return null;
    }
    if (!valid) return null;
    return this.remember(scope, token, parsed.payload);
  }

  /** How many verified tokens are remembered now (for tests and diagnostics). */
  get verifiedTokenCount(): number {
    return this.verified.size;
  }

  toPublicJwk(key: SigningKeyRecord): PublicJwk {
    const { n, e } = createPublicKey(key.publicKeyPem).export({ format: 'jwk' });
    // Only the public members are copied: nothing private can reach a JWKS.
    return { kty: 'RSA', n, e, kid: key.kid, alg: 'RS256', use: 'sig' };
  }

  forgetCurrentKeys(projectId: string | null): void {
    this.generation += 1;
    if (projectId === null) return this.currentKeys.clear();
    for (const [id, key] of this.currentKeys) if (key.projectId === projectId) this.currentKeys.delete(id);
  }

  private async currentKey(scope: TenantScope): Promise<CurrentKey> {
    const now = this.clock.now().getTime();
    const cached = this.currentKeys.get(scopeId(scope));
    if (cached && now < cached.expiresAt) return cached;
    const generation = this.generation;
    const record = await this.signingKeys.current(scope);
    if (!record) throw new Error('No signing key for this project environment.');
    const id = keyId(scope, record.kid);
    let privateKey = this.privateKeys.get(id);
    if (!privateKey) {
      privateKey = createPrivateKey(this.encryption.decrypt(record.encryptedPrivateKey, signingKeyContext(record)));
      this.privateKeys.set(id, privateKey);
    }
    const headerSegment = `${encodeJson({ alg: 'RS256', typ: 'JWT', kid: record.kid })}.`;
    const current = { projectId: scope.projectId, privateKey, expiresAt: now + this.currentKeyCacheMs, headerSegment };
    if (generation === this.generation) this.currentKeys.set(scopeId(scope), current);
    return current;
  }

  /** The payload of `token` if it was verified for this scope and its `exp` has not passed. */
  private rememberedPayload(scope: TenantScope, token: string): Readonly<Record<string, unknown>> | null {
    const entry = this.verified.get(token);
    if (!entry) return null;
    if (this.clock.now().getTime() >= entry.expiresAtMs) {
      this.verified.delete(token);
      return null;
    }
    return sameScope(entry.scope, scope) ? entry.payload : null;
  }

  /**
   * Remembers a verified token until its `exp` (one without a numeric `exp` is not), dropping the
   * first remembered beyond the limit. Tokens are remembered about in the order they expire, so
   * the first ones past their `exp` are dropped here too: a server whose users come and go does
   * not keep a full memory of dead tokens.
   */
  private remember(scope: TenantScope, token: string, payload: Record<string, unknown>): Readonly<Record<string, unknown>> {
    const frozen = Object.freeze(payload);
    const exp = payload.exp;
    if (this.verifiedLimit === 0 || typeof exp !== 'number' || !Number.isFinite(exp)) return frozen;
    const expiresAtMs = exp * 1000;
    const now = this.clock.now().getTime();
    if (now >= expiresAtMs) return frozen;
    for (const [first, entry] of this.verified) {
      if (entry.expiresAtMs > now) break;
      this.verified.delete(first);
    }
    if (!this.verified.has(token) && this.verified.size >= this.verifiedLimit) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, { scope: { projectId: scope.projectId, environment: scope.environment }, payload: frozen, expiresAtMs });
    return frozen;
  }

  /** The public key of `kid` within this scope only (docs/security.md): another scope's kid is not found. */
  private async publicKey(scope: TenantScope, kid: string): Promise<KeyObject | null> {
    const id = keyId(scope, kid);
    const cached = this.publicKeys.get(id);
    if (cached) return cached;
    const record = await this.signingKeys.findByKid(scope, kid);
    if (!record || record.projectId !== scope.projectId || record.environment !== scope.environment) return null;
    try {
      const publicKey = createPublicKey(record.publicKeyPem);
      if (publicKey.asymmetricKeyType !== 'rsa') return null;
      this.publicKeys.set(id, publicKey);
      return publicKey;
    } catch {
      return null;
    }
  }
}

/**
 * node:crypto's sign with a callback: the work runs on libuv's thread pool. Node keeps the callback
 * in a closure that V8 allocates in the old generation, so once the sign is done that dead closure
 * keeps whatever the callback still reaches alive through every young collection until a full one.
 * The callback therefore lets go of the promise's resolvers as it calls them: what stays behind is
 * a few empty slots, not the settled promise and its signature (docs/decisions.md, "What a
 * finished request leaves behind").
 */
function signOnPool(input: Buffer, key: KeyObject): Promise<Buffer> {
  let resolve: ((signature: Buffer) => void) | undefined;
  let reject: ((error: Error) => void) | undefined;
  const signed = new Promise<Buffer>((onSigned, onFailed) => {
    resolve = onSigned;
    reject = onFailed;
  });
  sign('sha256', input, key, (error, signature) => {
    const succeed = resolve;
    const fail = reject;
    resolve = reject = undefined;
    if (error) fail?.(error);
    else succeed?.(signature);
  });
  return signed;
}

interface ParsedToken {
  kid: string;
  signingInput: string;
  payload: Record<string, unknown>;
  signature: Buffer;
}

/** Strict compact-JWS parsing: 3 canonical base64url segments, a pinned header, JSON objects. */
function parseToken(token: unknown): ParsedToken | null {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every(isCanonicalBase64Url)) return null;
  const header = decodeJson(segments[0]);
  // alg pinned exactly (no none/HS256 confusion); crit names extensions we do not implement (RFC 7515
  // §4.1.11); jku/jwk/x5u/x5c are never read: the key comes from the scope's own store.
  if (header?.alg !== 'RS256' || 'crit' in header) return null;
  if (header.typ !== undefined && header.typ !== 'JWT') return null;
  if (typeof header.kid !== 'string' || header.kid === '') return null;
  const payload = decodeJson(segments[1]);
  if (!payload) return null;
  return {
    kid: header.kid,
    signingInput: `${segments[0]}.${segments[1]}`,
    payload,
    signature: Buffer.from(segments[2], 'base64url'),
  };
}

function decodeJson(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Base64url's alphabet in value order (RFC 4648 §5). */
const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether `segment` is canonical unpadded base64url, the one form a token of ours has. Buffer's
 * decoder skips stray characters and ignores what does not fill a byte, so several strings decode
 * to the same bytes; the canonical one has only the alphabet, no lone last character (a length of
 * 4n + 1 carries no whole byte in it) and zero in the bits of the last character that are left over
 * after the last byte (RFC 4648 §3.5: four of them at a length of 4n + 2, two at 4n + 3). The same
 * as re-encoding the decoded bytes and comparing, without the copy (the codec's tests compare both
 * on every string of up to three characters and on perturbed tokens).
 */
export function isCanonicalBase64Url(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 1 || !/^[A-Za-z0-9_-]+$/.test(segment)) return false;
  const leftOver = rest === 2 ? 0b1111 : rest === 3 ? 0b11 : 0;
  return (BASE64URL_ALPHABET.indexOf(segment[segment.length - 1]) & leftOver) === 0;
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

function scopeId(scope: TenantScope): string {
  return JSON.stringify([scope.projectId, scope.environment]);
}

/** Caches are keyed by scope and kid, so equal kids in two scopes can never share a key. */
function keyId(scope: TenantScope, kid: string): string {
  return JSON.stringify([scope.projectId, scope.environment, kid]);
}
