import type { RequestHandler } from 'express';
import { AuthError } from '@svc/core';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * A request that carries a body must say it is JSON (the OpenAPI document: 415 unsupported_media_type).
 * Besides being the API's only format, this blocks cross-site form posts, which browsers may send
 * as text/plain without a preflight. Body-less POSTs (ban, rotate) need no Content-Type.
 */
export function requireJson(): RequestHandler {
  return (req, _res, next) => {
    if (METHODS_WITH_BODY.has(req.method) && hasBody(req.headers) && !req.is('application/json')) {
      throw new AuthError('unsupported_media_type');
    }
    next();
  };
}

function hasBody(headers: { 'transfer-encoding'?: string; 'content-length'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}
