import { AuthError } from '../errors';
import type { TenantScope } from '../domain/environment';
import { CLOCK_LEEWAY_SECONDS, type AccessTokenClaims } from '../domain/tokens';
import type { AuthDeps } from './deps';

/**
 * Verifies an access token for the tenant chosen by the API key: the codec checks algorithm and
 * signature against this scope's keys only; here every claim is checked (docs/security.md).
 */
export async function verifyAccessToken(deps: Pick<AuthDeps, 'settings' | 'clock' | 'tokens'>, scope: TenantScope, token: string): Promise<AccessTokenClaims> {
  const payload = await deps.tokens.decode(scope, token);
  if (!payload) throw invalidToken('signature');
  const claims = readClaims(payload);
  if (!claims) throw invalidToken('claims');
  if (claims.iss !== deps.settings.issuer) throw invalidToken('issuer');
  if (claims.aud !== scope.projectId) throw invalidToken('audience');
  if (claims.env !== scope.environment) throw invalidToken('environment');
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  if (claims.exp + CLOCK_LEEWAY_SECONDS <= now) throw invalidToken('expired');
  if (claims.iat - CLOCK_LEEWAY_SECONDS > now) throw invalidToken('issued in the future');
  return claims;
}

function invalidToken(reason: string): AuthError {
  return new AuthError('invalid_token', undefined, { cause: new Error(`access token rejected: ${reason}`) });
}

const STRING_CLAIMS = ['iss', 'sub', 'aud', 'env', 'sid', 'email', 'role', 'jti'] as const;

function readClaims(payload: Record<string, unknown>): AccessTokenClaims | null {
  for (const name of STRING_CLAIMS) if (typeof payload[name] !== 'string') return null;
  if (!Number.isInteger(payload.iat) || !Number.isInteger(payload.exp)) return null;
  if (payload.env !== 'production' && payload.env !== 'sandbox') return null;
  return payload as unknown as AccessTokenClaims;
}
