import { randomUUID, sign, verify, type KeyObject } from 'node:crypto';

/** RS256 compact JWS with node:crypto, as the API does it (docs/security.md#access-tokens): the minimal handlers' crypto. */
export function signJwt(claims: Record<string, unknown>, privateKey: KeyObject, kid: string): string {
  const input = `${encode({ alg: 'RS256', typ: 'JWT', kid })}.${encode(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
}

/** The payload when the signature holds, the header is RS256 and `exp` is in the future; else null. */
export function verifyJwt(token: string, publicKey: KeyObject): Record<string, unknown> | null {
  const [header, payload, signature] = token.split('.');
  if (!header || !payload || !signature) return null;
  try {
    if ((JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: unknown }).alg !== 'RS256') return null;
    if (!verify('sha256', Buffer.from(`${header}.${payload}`), publicKey, Buffer.from(signature, 'base64url'))) return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    return typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 ? claims : null;
  } catch {
    return null;
  }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The API's access-token claims (docs/security.md#access-tokens), 900 s. */
export function accessClaims(who: { projectId: string; sub: string; sid: string; email: string; role: string }): Record<string, unknown> {
  const iat = Math.floor(Date.now() / 1000);
  const { projectId, sub, sid, email, role } = who;
  return { iss: 'http://minimal', sub, aud: projectId, env: 'production', sid, email, role, iat, exp: iat + 900, jti: randomUUID() };
}
