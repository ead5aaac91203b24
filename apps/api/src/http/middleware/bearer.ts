import type { Request } from 'express';
import { AuthError } from '@svc/core';

/** RFC 6750 credentials: the scheme is case-insensitive; the token is one run of non-space characters. */
export const BEARER = /^Bearer +(\S+) *$/i;

/** The access token of `Authorization: Bearer <token>`, or 401 invalid_token when there is none. */
export function bearerToken(req: Request): string {
  const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
  if (token === undefined) throw new AuthError('invalid_token', 'An access token is required (Authorization: Bearer <token>).');
  return token;
}

/**
 * The `sub` claim of the bearer token, read WITHOUT verifying it, for rate-limit keys only. Sound
 * for limiting guesses: a request whose token does not verify is refused before any code is
 * checked, so a forged `sub` can spend someone's budget but never buy extra guesses.
 */
export function unverifiedSubject(req: Request): string | null {
  const token = BEARER.exec(req.get('authorization') ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload || payload.length > 4096) return null;
  try {
    const sub = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub;
    return typeof sub === 'string' && sub.length <= 128 ? sub : null;
  } catch {
    return null;
  }
}
