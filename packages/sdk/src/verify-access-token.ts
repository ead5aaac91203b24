import { SvcError } from './svc-error';

type Jose = typeof import('jose');
type KeyInput = Parameters<Jose['jwtVerify']>[1];

/** Where the verifying key comes from: the environment's PEM public key, or its JWKS URL. */
export type VerificationKey = { publicKeyPem: string } | { jwksUrl: string };

/** What the token must have been issued for. */
export interface ExpectedToken {
  /** The project id: the token's `aud`. */
  projectId: string;
  /** `production` or `sandbox`: the token's `env`. */
  environment: 'production' | 'sandbox';
  /** The service's base URL (`iss`); checked when given. */
  issuer?: string;
  /** Allowed clock skew in seconds for `exp`/`iat` (default 60, as the API allows). */
  clockToleranceSeconds?: number;
}

/** Claims of an svc access token (docs/security.md#access-tokens). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  env: 'production' | 'sandbox';
  sid: string;
  email: string;
  role: string;
  iat: number;
  exp: number;
  jti: string;
}

// jose 6 is ESM-only and this package is CommonJS: load it once with import() (kept as import()
// by module nodenext). Keys are cached: importing a PEM costs a parse, and a remote JWKS keeps
// its own cache and cool-down, which only helps if the same set object is reused.
let jose: Promise<Jose> | undefined;
const pemKeys = new Map<string, Promise<KeyInput>>();
const jwksSets = new Map<string, KeyInput>();

/**
 * Verifies an svc access token locally, for customers' backends. The algorithm is pinned to RS256
 * (an `HS256` or `none` token is refused whatever key it names); `aud` must be the project,
 * `env` the environment, `iss` the issuer when given, and `exp` in the future.
 *
 * Local verification cannot see a logout or a ban before the token expires; call the API's
 * `/me` (SDK `me`) where that matters. Throws `SvcError('invalid_token', 401)` on any failure.
 */
export async function verifyAccessToken(token: string, key: VerificationKey, expected: ExpectedToken): Promise<AccessTokenClaims>;
/** The same, with the key and the expectations in one object. */
export async function verifyAccessToken(token: string, options: VerificationKey & ExpectedToken): Promise<AccessTokenClaims>;
export async function verifyAccessToken(token: string, key: VerificationKey, expectedOrNothing?: ExpectedToken): Promise<AccessTokenClaims> {
  const expected = expectedOrNothing ?? (key as VerificationKey & ExpectedToken);
  if (!expected.projectId || !expected.environment) throw new TypeError('verifyAccessToken: projectId and environment are required.');
  const lib = await (jose ??= import('jose'));
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await lib.jwtVerify(token, await keyOf(lib, key), {
      algorithms: ['RS256'],
      audience: expected.projectId,
      issuer: expected.issuer,
      clockTolerance: expected.clockToleranceSeconds ?? 60,
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (error) {
    throw new SvcError('invalid_token', 401, `Access token refused: ${(error as Error).message}`, { cause: error });
  }
  if (payload.env !== expected.environment) {
    throw new SvcError('invalid_token', 401, `Access token refused: issued for environment "${String(payload.env)}", not "${expected.environment}".`);
  }
  return payload as unknown as AccessTokenClaims;
}

function keyOf(lib: Jose, key: VerificationKey): Promise<KeyInput> | KeyInput {
  if ('publicKeyPem' in key) {
    let imported = pemKeys.get(key.publicKeyPem);
    if (!imported) {
      imported = lib.importSPKI(key.publicKeyPem, 'RS256');
      imported.catch(() => pemKeys.delete(key.publicKeyPem));
      pemKeys.set(key.publicKeyPem, imported);
    }
    return imported;
  }
  let set = jwksSets.get(key.jwksUrl);
  if (!set) {
    set = lib.createRemoteJWKSet(new URL(key.jwksUrl)) as KeyInput;
    jwksSets.set(key.jwksUrl, set);
  }
  return set;
}
