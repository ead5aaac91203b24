import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config';

/** Secret-bearing fields that must never be written, wherever they appear (docs/security.md). */
const SECRET_FIELDS = ['password', 'newPassword', 'token', 'refreshToken', 'accessToken', 'apiKey', 'adminToken', 'masterKey', 'secret', 'clientSecret'];
const SECRET_HEADERS = ['authorization', '["x-api-key"]', 'cookie', '["set-cookie"]'];

/**
 * Pino paths for the fields above: at the top level and one or two objects deep (pino's
 * wildcards are per level), plus the secret headers of any logged request or response.
 */
const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((field) => [field, `*.${field}`, `*.*.${field}`]),
  ...SECRET_HEADERS.flatMap((header) => [`headers.${header}`.replace('.[', '['), `*.headers.${header}`.replace('.[', '[')]),
];

/**
 * Fields of database errors that quote the data of the failed statement: PostgreSQL's `detail`
 * ("Key (email)=(ada@example.com) already exists"), `where` (the start of a rejected JSON value),
 * `hint`, and TypeORM's `parameters`. Request data never reaches the log through them.
 */
const DATA_FIELDS = new Set(['detail', 'where', 'hint', 'parameters', 'internalQuery']);

/**
 * pino's error serializer without {@link DATA_FIELDS}, also in nested errors (`cause`, TypeORM's
 * `driverError`), and with the values PostgreSQL quotes in its messages
 * (`invalid input syntax for type uuid: "…"`) blanked. Code, routine, constraint and stack stay:
 * they say what failed without saying what was sent.
 */
function serializeError(error: unknown): unknown {
  const serialized = pino.stdSerializers.err(error as Error);
  return withoutData(serialized, 0);
}

function withoutData(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 3) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (DATA_FIELDS.has(key)) continue;
    copy[key] = typeof field === 'object' ? withoutData(field, depth + 1) : field;
  }
  if (isDatabaseError(copy)) {
    if (typeof copy.message === 'string') copy.message = blankQuoted(copy.message);
    if (typeof copy.stack === 'string') copy.stack = copy.stack.replace(/^[^\n]*/, (line) => blankQuoted(line));
  }
  return copy;
}

/** PostgreSQL's errors carry a five-character SQLSTATE, a severity and the server routine. */
function isDatabaseError(error: Record<string, unknown>): boolean {
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) && typeof error.severity === 'string';
}

function blankQuoted(message: string): string {
  return message.replace(/"[^"]*"/g, '"…"');
}

/** The service's logger: JSON lines on stdout (or `destination`), secrets censored. */
export function createLogger(options: { level: LogLevel; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      base: { service: 'svc-api' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
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
