/**
 * A refused or failed call to the session proxy. `code` is the proxy's (and the API's) error code,
 * e.g. `invalid_credentials`, `user_already_exists`, `validation_error`, `invalid_totp_code`,
 * `rate_limited`; `network_error` (status 0) when no answer arrived.
 */
export class SessionError extends Error {
  readonly code: string;
  readonly status: number;
  /** Seconds to wait before trying again, when the proxy said so (429). */
  readonly retryAfter?: number;

  constructor(code: string, status: number, message: string, retryAfter?: number) {
    super(message);
    this.name = 'SessionError';
    this.code = code;
    this.status = status;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}
