import { createSvcClient, type UserMe } from '@svc/sdk';
import { isSvcHeader } from '../core/checks';
import { createGuardCore, userHeaders, type RequireUserOptions } from '../core/guard';
import { addressOf, toResponse, type ClientIpReader, type WebCallContext } from './web-request';

export interface UserGuardOptions extends RequireUserOptions {
  /** As for the session handler: the end user's address when the call's context has none. */
  clientIp?: ClientIpReader;
}

/** What the guard decided: the user and the request to pass on, or the refusal to send. */
export type GuardResult = { user: UserMe; request: Request } | { response: Response };

/** A handler behind the guard: the forwarded request (with `x-svc-user-*`) and the user. */
export type GuardedHandler = (request: Request, user: UserMe) => Response | Promise<Response>;

export interface UserGuard {
  /**
   * Checks a request. Passed: `request` is a copy carrying `x-svc-user-id`, `x-svc-user-email`
   * and `x-svc-user-role` (every `x-svc-*` header the client sent is dropped). Refused:
   * `response` is the 401/403/502 in the contract's envelope.
   */
  check(request: Request, context?: WebCallContext): Promise<GuardResult>;
  /** Wraps a handler into a web-standard one that answers the refusal or calls it. */
  protect(handler: GuardedHandler): (request: Request, context?: WebCallContext) => Promise<Response>;
}

/**
 * The request guard for web-standard runtimes: the same rule as Express's `requireUser` (a
 * bearer token or the proxy's access cookie, checked at the API's /me on every request).
 */
export function createUserGuard(options: UserGuardOptions): UserGuard {
  const guard = createGuardCore(options, (apiKey, baseUrl) => createSvcClient({ apiKey, baseUrl }));
  const check = async (request: Request, context?: WebCallContext): Promise<GuardResult> => {
    let outcome;
    try {
      const clientIp = addressOf(request, context, options.clientIp)();
      outcome = await guard.check(request.headers.get('authorization') ?? undefined, request.headers.get('cookie') ?? undefined, clientIp);
    } catch {
      outcome = { refusal: { status: 500, error: 'internal_error', message: 'The user could not be checked.' } };
    }
    if ('refusal' in outcome) {
      const { status, error, message } = outcome.refusal;
      return { response: toResponse(request.method, { status, body: { error, message }, headers: {}, cookies: [] }) };
    }
    const headers = new Headers();
    request.headers.forEach((value, name) => {
      if (!isSvcHeader(name)) headers.append(name, value);
    });
    for (const [name, value] of userHeaders(outcome.user)) headers.set(name, value);
    return { user: outcome.user, request: new Request(request, { headers }) };
  };
  return {
    check,
    protect: (handler) => async (request, context) => {
      const result = await check(request, context);
      return 'response' in result ? result.response : handler(result.request, result.user);
    },
  };
}
