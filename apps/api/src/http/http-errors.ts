import { type AuthError, defaultMessage, type ErrorCode } from '@svc/core';

/**
 * The only code -> HTTP status table. Use cases throw `AuthError(code)`; nothing
 * else in the service knows a status. `Record<ErrorCode, ...>` makes a new core code a type error
 * here until it is given a status.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  validation_error: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_credentials: 401,
  invalid_refresh_token: 401,
  invalid_token: 401,
  invalid_magic_link: 401,
  invalid_reset_token: 401,
  invalid_two_factor_token: 401,
  invalid_totp_code: 401,
  invalid_passkey: 401,
  invalid_verification: 401,
  unauthorized: 401,
  user_banned: 403,
  plan_limit_reached: 403,
  origin_not_allowed: 403,
  reauthentication_required: 403,
  email_not_verified: 403,
  plan_upgrade_required: 403,
  not_found: 404,
  user_not_found: 404,
  user_already_exists: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};

/**
 * `Retry-After` (seconds) of every 503: long enough for a pool to reconnect or a lock to go, short
 * enough that clients come back soon after a blip. Clients should add jitter.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The error envelope of the contract: `{ error, message }` and nothing else. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
}

export interface HttpError {
  status: number;
  body: ErrorBody;
}

/** Status and envelope for a domain error. Only the public message travels; causes stay in logs. */
export function fromAuthError(error: AuthError): HttpError {
  return { status: HTTP_STATUS[error.code], body: { error: error.code, message: error.message } };
}

/**
 * Errors raised by body-parser (and the router) carry a `type` or an HTTP `status`. They are
 * client mistakes, so they get the matching contract code; anything unrecognised returns null and
 * becomes a 500.
 */
export function fromTransportError(error: unknown): HttpError | null {
  if (typeof error !== 'object' || error === null) return null;
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case 'entity.parse.failed':
      return make('validation_error', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return make('payload_too_large', 'The request body is too large (at most 64 KiB).');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return make('unsupported_media_type', 'The request body must be UTF-8 encoded JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return make('validation_error', 'The request body could not be read.');
  }
  // e.g. a path parameter with broken percent-encoding (router: status 400).
  if (status === 400) return make('validation_error', 'The request is malformed.');
  return null;
}

/** The envelope for a code with the catalogue's message or a more specific one. */
export function errorBody(code: ErrorCode, message?: string): ErrorBody {
  return { error: code, message: message ?? defaultMessage(code) };
}

function make(code: ErrorCode, message: string): HttpError {
  return { status: HTTP_STATUS[code], body: errorBody(code, message) };
}
