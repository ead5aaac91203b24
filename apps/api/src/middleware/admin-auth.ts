import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AuthError } from '@svc/core';

/**
 * Guards the admin API (DESIGN §12) with `Authorization: Bearer <SVC_ADMIN_TOKEN>`. Both sides
 * are hashed before the constant-time compare, so neither the token's bytes nor its length leak
 * through timing. Missing or wrong -> 401 unauthorized.
 */
export function requireAdmin(adminToken: string): RequestHandler {
  const expected = digest(adminToken);
  return (req, _res, next) => {
    const presented = /^Bearer +(\S+) *$/i.exec(req.get('authorization') ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) throw new AuthError('unauthorized');
    next();
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
