import { isSvcError } from '@svc/sdk';
import { BodyError } from './body';
import type { Exchange } from './exchange';

// Upstream answers about the proxy's own key are the operator's problem, not the browser's: a
// 401 here would read as "signed out" to the client.
const KEY_ERRORS = new Set(['missing_api_key', 'invalid_api_key']);

/** An API 401 (bad token, bad refresh token): the browser is simply not signed in. */
export function isUnauthenticated(error: unknown): boolean {
  return isSvcError(error) && error.status === 401 && !KEY_ERRORS.has(error.code);
}

/**
 * The answer to a failure: API errors pass through with their status and code (and
 * Retry-After); an unreachable API is 502 upstream_unavailable; refused bodies are 400/413/415
 * like the API's; anything else is 500 without details. Cookies already set stay set.
 */
export function answerError(ex: Exchange, error: unknown, onError: (error: unknown) => void): void {
  if (error instanceof BodyError) return ex.fail(error.status, error.code, error.message);
  if (isSvcError(error)) {
    if (error.status === 0) {
      onError(error);
      return ex.fail(502, 'upstream_unavailable', 'The authentication service is unreachable; try again shortly.');
    }
    // The API's 503 (its database could not answer in time) passes through: retrying helps there.
    if (KEY_ERRORS.has(error.code) || (error.status >= 500 && error.code !== 'service_unavailable')) {
      onError(error);
      return ex.fail(500, 'internal_error', 'The session proxy could not complete the request.');
    }
    if (error.retryAfter !== undefined) ex.answer.headers['Retry-After'] = String(error.retryAfter);
    return ex.fail(error.status, error.code, error.message);
  }
  onError(error);
  ex.fail(500, 'internal_error', 'The session proxy could not complete the request.');
}
