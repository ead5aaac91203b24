// What the demo says for each error the session proxy (or the browser) can answer. Codes come
// from the API's error table (the OpenAPI document); anything unknown gets the server's own message.

const BY_CODE = {
  invalid_credentials: 'That email and password don’t match an account.',
  user_already_exists: 'An account with this email already exists. Sign in instead.',
  user_banned: 'This account has been suspended. Contact your workspace administrator.',
  plan_limit_reached: 'This workspace has reached its user limit.',
  validation_error: 'Please check the highlighted fields.',
  invalid_two_factor_token: 'That sign-in attempt expired. Please sign in again.',
  invalid_totp_code: 'That code didn’t work. Check your authenticator app and try again.',
  invalid_passkey: 'That passkey couldn’t be verified. Try another sign-in method.',
  invalid_token: 'Your session has ended. Please sign in again.',
  origin_not_allowed: 'This page isn’t allowed to sign in here.',
  upstream_unavailable: 'The sign-in service is unavailable right now. Try again in a moment.',
  network_error: 'Can’t reach the server. Check your connection and try again.',
  invalid_verification: 'That link or code didn’t work. Ask for a new one.',
  invalid_magic_link: 'That sign-in link didn’t work: it was used already, has expired, or a newer one replaced it. Ask for a new one.',
  invalid_reset_token: 'That reset link didn’t work: it was used already, has expired, or a newer one replaced it. Ask for a new one.',
  user_not_found: 'That account no longer exists.',
  email_not_verified: 'Confirm your email address first: open the link or enter the code we sent you.',
  reauthentication_required: 'For your security, enter your password again to do this.',
};

/** A sentence for the user about `error` (a SessionError, or a WebAuthn DOMException). */
export function describeError(error) {
  if (error && error.code === 'rate_limited') {
    const wait = error.retryAfter ? ` Try again in ${formatWait(error.retryAfter)}.` : ' Try again later.';
    return `Too many attempts.${wait}`;
  }
  // @simplewebauthn/browser rethrows the browser's NotAllowedError when the user cancels or times out.
  if (error && (error.name === 'NotAllowedError' || error.code === 'ERROR_CEREMONY_ABORTED')) {
    return 'The passkey prompt was closed before it finished.';
  }
  if (error && error.name === 'InvalidStateError') return 'This device already has a passkey for your account.';
  if (error && typeof error.code === 'string' && BY_CODE[error.code]) return BY_CODE[error.code];
  return error?.message || 'Something went wrong. Please try again.';
}

function formatWait(seconds) {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}

/** Inline validation of the sign-in and sign-up fields; null when the value is fine. */
export function fieldProblem(input) {
  const value = input.value.trim();
  if (input.required && value === '') {
    return input.type === 'email' ? 'Enter your email address.' : input.name === 'code' ? 'Enter the code.' : input.name === 'newPassword' ? 'Enter a new password.' : 'Enter your password.';
  }
  if (input.type === 'email' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)) return 'Enter an email address like name@company.com.';
  if (input.minLength > 0 && input.value.length < input.minLength) return `Use at least ${input.minLength} characters.`;
  if (input.name === 'code' && !/^([0-9]{6}|[A-Za-z0-9-]{8,})$/.test(value.replace(/\s/g, ''))) {
    return 'Codes are 6 digits (or a recovery code).';
  }
  return null;
}
