import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config';

/** Secret-bearing fields that must never be written, wherever they appear (DESIGN §4a). */
const SECRET_FIELDS = ['password', 'newPassword', 'token', 'refreshToken', 'accessToken', 'apiKey', 'adminToken', 'masterKey', 'secret', 'clientSecret'];
const SECRET_HEADERS = ['authorization', '["x-api-key"]', 'cookie', '["set-cookie"]'];

/**
 * Pino paths for the fields above: at the top level and one or two objects deep (pino's
 * wildcards are per level), plus the secret headers of any logged request or response.
 */
export const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  ...SECRET_HEADERS.flatMap((header) => [`headers.${header}`.replace('.[', '['), `*.headers.${header}`.replace('.[', '[')]),
];

/** The service's logger: JSON lines on stdout (or `destination`), secrets censored. */
export function createLogger(options: { level: LogLevel; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'svc-api' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Synchronous stdout: no line is lost when the process exits right after writing it.
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}
