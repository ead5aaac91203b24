import type { ErrorRequestHandler, Response } from 'express';
import { isSvcError } from '@svc/sdk';

/** Writes the contract's error envelope. */
export function sendError(res: Response, status: number, error: string, message: string): void {
  res.status(status).json({ error, message });
}

// Upstream answers about the proxy's own key are the operator's problem, not the browser's: a
// 401 here would read as "signed out" to the client.
const KEY_ERRORS = new Set(['missing_api_key', 'invalid_api_key']);

/**
 * The proxy's error handler: API errors pass through with their status and code (and
 * Retry-After); an unreachable API is 502 upstream_unavailable; body-parser failures are 400/413
 * like the API's; anything else is 500 without details.
 */
export function proxyErrorHandler(onError: (error: unknown) => void): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error);
    if (isSvcError(error)) {
      if (error.status === 0) {
        onError(error);
        return sendError(res, 502, 'upstream_unavailable', 'The authentication service is unreachable; try again shortly.');
      }
      // The API's 503 (its database could not answer in time) passes through: retrying helps there.
      if (KEY_ERRORS.has(error.code) || (error.status >= 500 && error.code !== 'service_unavailable')) {
        onError(error);
        return sendError(res, 500, 'internal_error', 'The session proxy could not complete the request.');
      }
      if (error.retryAfter !== undefined) res.set('Retry-After', String(error.retryAfter));
      return sendError(res, error.status, error.code, error.message);
    }
    const type = (error as { type?: unknown }).type;
    if (type === 'entity.parse.failed') return sendError(res, 400, 'validation_error', 'The request body is not valid JSON.');
    if (type === 'entity.too.large') return sendError(res, 413, 'payload_too_large', 'The request body is too large.');
    onError(error);
    sendError(res, 500, 'internal_error', 'The session proxy could not complete the request.');
  };
}
