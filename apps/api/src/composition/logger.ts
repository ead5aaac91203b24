import pino, { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config';

/** Secret-bearing fields that must never be written, wherever they appear (docs/security.md). */
const SECRET_FIELDS = new Set(['password', 'newPassword', 'token', 'refreshToken', 'accessToken', 'apiKey', 'adminToken', 'masterKey', 'secret', 'clientSecret']);
/** Headers that carry credentials, censored in any `headers` object at the top level or one object deep. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'cookie', 'set-cookie']);
const CENSOR = '[redacted]';
/** Secret fields are looked for at the top level of a line and one or two objects (or arrays) deep. */
const DEEPEST = 2;

/**
 * `value` with every secret field censored, as the keys of an object at `depth` (0: the line's
 * top level); a `headers` object also loses its credential headers (`inHeaders`). Returns
 * `value` itself when it holds no secret; otherwise a copy of the objects on the way to each
 * secret, so the caller's objects are never changed. Arrays count as a level (`items[0].token`
 * is two deep). Objects written by their own `toJSON` (Date, Buffer) are left to it. An object
 * that is copied is written from its own enumerable fields, as JSON.stringify writes any object.
 *
 * One walk over the line's fields instead of pino's `redact` paths: the same fields censored
 * (pino's 38 paths were these names at three depths and the headers at two), at about a tenth of
 * the CPU per line (bench/README.md, round 9).
 */
function censorSecrets(value: unknown, depth = 0, inHeaders = false): unknown {
  if (typeof value !== 'object' || value === null || depth > DEEPEST) return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i += 1) {
      const next = censorSecrets(value[i], depth + 1);
      if (next !== value[i]) (copy ??= value.slice())[i] = next;
    }
    return copy ?? value;
  }
  const source = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    const field = source[key];
    const next = SECRET_FIELDS.has(key) || (inHeaders && SECRET_HEADERS.has(key)) ? CENSOR : censorSecrets(field, depth + 1, key === 'headers' && depth <= 1);
    if (next !== field) (copy ??= { ...source })[key] = next;
  }
  return copy ?? value;
}

/**
 * A line's fields censored (`censorSecrets`), but for `err`: that one is pino's error, which its
 * serializer turns into a plain object first (and censors, see `createLogger`).
 */
function censorLine(line: Record<string, unknown>): Record<string, unknown> {
  if (!('err' in line)) return censorSecrets(line) as Record<string, unknown>;
  const { err, ...rest } = line;
  const censored = censorSecrets(rest) as Record<string, unknown>;
  return censored === rest ? line : { ...censored, err };
}

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
  const logger = pino(
    {
      level: options.level,
      base: { service: 'svc-api' },
      formatters: { log: censorLine, bindings: (bindings) => censorSecrets(bindings) as Record<string, unknown> },
      serializers: { err: (error: unknown) => censorSecrets(serializeError(error), 1) },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ?? batchedStdout(),
  );
  // pino applies `formatters.bindings` to the base bindings only; a child's are censored here.
  // Children are made with Object.create(parent), so every descendant has this method too.
  const child = logger.child as unknown as (this: Logger, bindings: Bindings, childOptions?: ChildLoggerOptions) => Logger;
  logger.child = function censoredChild(this: Logger, bindings: Bindings, childOptions?: ChildLoggerOptions) {
    return child.call(this, censorSecrets(bindings) as Bindings, childOptions);
  } as unknown as Logger['child'];
  return logger;
}

/** A line waits at most this long in the batch before it reaches stdout. */
const FLUSH_INTERVAL_MS = 200;

/**
 * Stdout written in batches (4 KiB, or 200 ms after a line) instead of one write(2) per line: a
 * line per request made the write the largest cost after the response itself (bench/README.md).
 * pino flushes the batch synchronously when the process exits, also on process.exit() and on an
 * uncaught exception, so lines are lost only if the process is killed (SIGKILL, out of memory),
 * and then at most 200 ms of them.
 */
function batchedStdout(): DestinationStream {
  return flushedWithin(pino.destination({ dest: 1, sync: false, minLength: 4096 }), FLUSH_INTERVAL_MS);
}

/** What {@link flushedWithin} needs of a batching stream: sonic-boom's writes, flush and 'write' event. */
export interface BatchingStream {
  write(data: string): boolean;
  flush(): void;
  /** 'write': `bytes` of the batch reached the destination. */
  on(event: 'write', listener: (bytes: number) => void): unknown;
}

/**
 * `stream` with every line flushed at most `ms` after it was written, by a timer that runs only
 * while lines are waiting: an idle server does not wake up to flush nothing (a flush every 200 ms
 * was five wake-ups and five empty writes a second, bench/README.md "Round 24"). The timer is
 * armed by the first line after a quiet spell, and armed again as long as bytes written have not
 * all reached the destination (a flush is a no-op while a write is in flight, whose leftover
 * below the batch size would otherwise wait for the next line). `setTimer` is for tests.
 */
export function flushedWithin<S extends BatchingStream>(stream: S, ms: number, setTimer: (run: () => void, ms: number) => { unref(): unknown } = setTimeout): S {
  const write = stream.write.bind(stream);
  let waiting = 0; // bytes written to the stream and not yet reported out by its 'write' event
  let armed = false;
  const tick = () => {
    armed = false;
    if (waiting <= 0) return;
    stream.flush();
    arm();
  };
  const arm = () => {
    if (armed) return;
    armed = true;
    setTimer(tick, ms).unref();
  };
  stream.on('write', (bytes) => {
    waiting -= bytes;
  });
  stream.write = (data: string) => {
    waiting += Buffer.byteLength(data);
    arm();
    return write(data);
  };
  return stream;
}
