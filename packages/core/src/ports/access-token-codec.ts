import type { TenantScope } from '../domain/environment';
import type { SigningKeyRecord } from '../domain/signing-key';
import type { AccessTokenClaims } from '../domain/tokens';

/** A public key in JWK form (RFC 7517), as published in JWKS. */
export interface PublicJwk {
  kty: string;
  kid: string;
  alg: string;
  use: 'sig';
  [member: string]: unknown;
}

export interface AccessTokenCodec {
  /** Signs the claims with the scope's current key; the header names the key's kid. */
  sign(scope: TenantScope, claims: AccessTokenClaims): Promise<string>;
  /**
   * Checks the token's form, algorithm (pinned) and signature against the keys of this scope only
   * (never a key named by the token alone) and returns its payload; null when any check fails.
   * Claim checks (iss, aud, env, exp) are core's (see verify-access-token). A codec may answer a
   * token it verified before with the same payload object, frozen: callers read it, never change it.
   */
  decode(scope: TenantScope, token: string): Promise<Record<string, unknown> | null>;
  /** The JWK form of a stored key's public half. */
  toPublicJwk(key: SigningKeyRecord): PublicJwk;
  /**
   * For a codec that keeps the current key between signs: forget it for the project (every
   * project for null), so the next sign asks the store. Called on a rotation's change notice.
   */
  forgetCurrentKeys?(projectId: string | null): void;
}

export interface SigningKeyFactory {
  /** A new key pair for the scope: public PEM, private key encrypted at rest, fresh kid. */
  generate(scope: TenantScope, createdAt: Date): Promise<SigningKeyRecord>;
}
