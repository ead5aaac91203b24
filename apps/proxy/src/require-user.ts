import type { RequestHandler } from 'express';
import { createGuardCore, userHeaders, type RequireUserOptions } from './core/guard';
import { stripSvcHeaders, writeAnswer } from './node-request';
import { proxySvcClient } from './svc-client';

export type { RequireUserOptions } from './core/guard';

/**
 * The request guard as Express middleware (contract "Request-guard helper"): the token from
 * `Authorization: Bearer` or the proxy's access cookie is checked at the API's /me. On success
 * the request carries `x-svc-user-id`, `x-svc-user-email` and `x-svc-user-role` (any such header
 * the client sent is deleted first, success or not) and `res.locals.svcUser` holds the user. A
 * missing or refused token is `401 { error, message }`; a banned user `403 user_banned`; an
 * unreachable API `502`.
 */
export function requireUser(options: RequireUserOptions): RequestHandler {
  const guard = createGuardCore(options, proxySvcClient);
  return async (req, res, next) => {
    stripSvcHeaders(req);
    const authorization = req.headers.authorization;
    let outcome;
    try {
      outcome = await guard.check(authorization, req.headers.cookie, req.ip ?? req.socket.remoteAddress);
    } catch (error) {
      return next(error);
    }
    if ('refusal' in outcome) {
      const { status, error, message } = outcome.refusal;
      return writeAnswer(res, { status, body: { error, message }, headers: {}, cookies: [] });
    }
    for (const [name, value] of userHeaders(outcome.user)) req.headers[name] = value;
    res.locals.svcUser = outcome.user;
    next();
  };
}
