/**
 * The closed catalogue of error codes. The first block is the contract's error table; the rest are
 * the codes the service adds for paths the contract does not show (all in the OpenAPI document). Only apps/api maps them to HTTP.
 */
export const ERROR_CODES = [
  'validation_error',
  'missing_api_key',
  'invalid_api_key',
  'invalid_credentials',
  'invalid_refresh_token',
  'invalid_token',
  'invalid_magic_link',
  'invalid_reset_token',
  'user_banned',
  'plan_limit_reached',
  'user_not_found',
  'user_already_exists',
  'rate_limited',
  // beyond the contract's table
  'origin_not_allowed',
  'plan_upgrade_required',
  'not_found',
  'payload_too_large',
  'unsupported_media_type',
  'invalid_two_factor_token',
  'invalid_totp_code',
  'invalid_passkey',
  'unauthorized',
  'internal_error',
  // a required dependency (the database) cannot answer in time; retry after a pause
  'service_unavailable',
  // a sensitive change from a session whose sign-in is not recent, without a proof in the request
  'reauthentication_required',
  // a sign-in to a project that requires confirmed addresses, of a user who has not confirmed yet
  'email_not_verified',
  // a wrong, used or expired link or code of an e-mail verification or address change (not the access token)
  'invalid_verification',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Public messages, kept apart from internal causes (never include user input or secrets). */
const DEFAULT_MESSAGES: Record<ErrorCode, string> = {
  validation_error: 'The request is not valid.',
  missing_api_key: 'An API key is required in the X-API-Key header.',
  invalid_api_key: 'The API key is not valid.',
  invalid_credentials: 'Invalid email or password.',
  invalid_refresh_token: 'The refresh token is not valid.',
  invalid_token: 'The token is not valid.',
  invalid_magic_link: 'The magic link is not valid.',
  invalid_reset_token: 'The password reset token is not valid.',
  user_banned: 'This user is banned.',
  plan_limit_reached: "The project's plan user limit has been reached.",
  user_not_found: 'The user was not found.',
  user_already_exists: 'A user with this email already exists.',
  rate_limited: 'Too many requests. Retry later with exponential backoff.',
  origin_not_allowed: 'The request origin is not allowed for this project.',
  plan_upgrade_required: 'This feature needs the Pro plan.',
  not_found: 'Not found.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'The request body must be JSON (Content-Type: application/json).',
  invalid_two_factor_token: 'The second-factor token is not valid.',
  invalid_totp_code: 'The code is not valid.',
  invalid_passkey: 'The passkey is not valid.',
  unauthorized: 'Authentication is required.',
  internal_error: 'An internal error occurred.',
  service_unavailable: 'The service cannot answer right now. Retry later.',
  reauthentication_required: 'This change needs a recent sign-in: sign in again, or send the current password or a TOTP code.',
  email_not_verified: 'Confirm the e-mail address first: a link and a code were sent to it.',
  invalid_verification: 'The verification link or code is not valid.',
};

export interface AuthErrorOptions {
  /** Internal cause for logs; never sent to clients. */
  cause?: unknown;
  /** Extra, safe-to-publish details (e.g. which field failed validation, retry hints). */
  details?: Record<string, unknown>;
}

export class AuthError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message?: string, options: AuthErrorOptions = {}) {
    super(message ?? DEFAULT_MESSAGES[code], { cause: options.cause });
    this.name = 'AuthError';
    this.code = code;
    this.details = options.details;
  }
}

export function isAuthError(error: unknown, code?: ErrorCode): error is AuthError {
  return error instanceof AuthError && (code === undefined || error.code === code);
}

export function defaultMessage(code: ErrorCode): string {
  return DEFAULT_MESSAGES[code];
}
