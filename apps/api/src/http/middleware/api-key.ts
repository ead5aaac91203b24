import type { Request, RequestHandler, Response } from 'express';
import { AuthError, type AuthService, type ResolvedApiKey } from '@svc/core';
import { originGuard } from './cors';

/**
 * Resolves `X-API-Key` to its project and environment and keeps it on `res.locals.apiKey`.
 * No header -> 401 missing_api_key; anything else that does not resolve -> 401 invalid_api_key
 * (both decided by core). Resolutions are cached by core until a change notice drops them (10 s at most).
 */
export function requireApiKey(auth: AuthService): RequestHandler {
  return async (req: Request, res: Response, next) => {
    res.locals.apiKey = await auth.resolveApiKey(req.get('x-api-key'));
    next();
  };
}

/** The tenant of the current request; only valid behind {@link requireApiKey}. */
export function apiKeyOf(res: Response): ResolvedApiKey {
  const key = res.locals.apiKey as ResolvedApiKey | undefined;
  // A route wired without requireApiKey is a programming error, never a client's.
  if (!key) throw new AuthError('internal_error', undefined, { cause: new Error('apiKeyOf used without requireApiKey') });
  return key;
}

/** allowedOrigins for key-bearing routes: the project comes from the API key (see cors.ts). */
export function checkOrigin(): RequestHandler {
  return originGuard((_req, res) => apiKeyOf(res).project.allowedOrigins);
}
