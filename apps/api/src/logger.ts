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
    options.destination ?? batchedStdout(),
  );
}

/** A line waits at most this long in the batch before it reaches stdout. */
const FLUSH_INTERVAL_MS = 200;

/**
 * Stdout written in batches (4 KiB, or every 200 ms) instead of one write(2) per line: a line per
 * request made the write the largest cost after the response itself (bench/README.md). pino
 * flushes the batch synchronously when the process exits, also on process.exit() and on an
 * uncaught exception, so lines are lost only if the process is killed (SIGKILL, out of memory),
 * and then at most 200 ms of them.
 */
function batchedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), FLUSH_INTERVAL_MS).unref();
  return stream;
}
