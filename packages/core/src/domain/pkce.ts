import { createHash } from 'node:crypto';

/** RFC 7636 S256: BASE64URL(SHA-256(ASCII(code_verifier))). */
export function pkceChallenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}
