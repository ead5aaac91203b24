import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AuthError } from '@svc/core';

/**
 * Guards the admin API (the OpenAPI document) with `Authorization: Bearer <SVC_ADMIN_TOKEN>`. Both sides
 * are hashed before the constant-time compare, so neither the token's bytes nor its length leak
 * through timing. Missing or wrong -> 401 unauthorized. `otherTokens` are accepted too (the
 * scrape-only metrics token on /metrics).
 */
export function requireAdmin(adminToken: string, ...otherTokens: string[]): RequestHandler {
  const expected = [adminToken, ...otherTokens].map(digest);
  return (req, _res, next) => {
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented === undefined) throw new AuthError('unauthorized');
    const hash = digest(presented);
    // Every token is compared (no early exit), so timing does not tell which one nearly matched.
    const matches = expected.filter((token) => timingSafeEqual(hash, token)).length;
    if (matches === 0) throw new AuthError('unauthorized');
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
