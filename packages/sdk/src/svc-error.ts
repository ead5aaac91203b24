/**
 * A failed call to the svc API, or a refused access token. `code` is the contract's error code
 * (`invalid_credentials`, `rate_limited`, ...) or one of the SDK's own: `network_error` (no HTTP
 * answer; status 0) and `invalid_response` (an answer that is not the contract's envelope).
 */
export class SvcError extends Error {
  /** Machine-readable code from the `{ error }` body. */
  readonly code: string;
  /** HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** Seconds the API asked the caller to wait (`Retry-After` on 429). */
  readonly retryAfter?: number;

  constructor(code: string, status: number, message: string, options: { retryAfter?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = code;
    this.status = status;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
  }
}

/** True for an {@link SvcError}; works across copies of the SDK loaded twice. */
export function isSvcError(error: unknown): error is SvcError {
  return error instanceof SvcError || (error instanceof Error && error.name === 'SvcError' && 'code' in error && 'status' in error);
}
