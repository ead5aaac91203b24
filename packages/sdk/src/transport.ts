import type { HttpAnswer, HttpRequest, HttpRequester } from './http-requester';
import { backoffMs, parseRetryAfter, sleep, type RetryOptions } from './retry';
import { SvcError } from './svc-error';

/** Per-call options of every SDK method. */
export interface CallOptions {
  /** The end user's IP address, sent as `X-Svc-Client-Ip` so the API's rate limits count the user, not your server (docs/security.md#rate-limits). */
  clientIp?: string;
  /**
   * A stable, opaque id of the end user's browser or device (at most 128 characters), sent as
   * `X-Svc-Device-Id`. A device that has signed in to an account before is not locked out by
   * failures from elsewhere (docs/security.md). The session proxy keeps one in a cookie.
   */
  deviceId?: string;
  /**
   * The end user's browser or app (its `User-Agent`), sent as `X-Svc-User-Agent`: the user's
   * session list shows it. Without it the API records the User-Agent of your server's request.
   */
  userAgent?: string;
  /** The user's access token, sent as `Authorization: Bearer` (required by the calls that act for a signed-in user). */
  accessToken?: string;
  /** Aborts the call (and any pending retry). */
  signal?: AbortSignal;
}

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  request: HttpRequester;
  retry: RetryOptions;
  timeoutMs: number;
}

/** One HTTP call as the client methods describe it. */
export interface CallSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Safe to send again after a 429 or a network error (no state change, or an idempotent one). */
  retrySafe: boolean;
  /** False for the two endpoints the contract lists without a key (7 and 11). */
  withKey?: boolean;
  call?: CallOptions;
}

/**
 * Sends `spec`, unwraps `{ data }`, turns `{ error, message }` into {@link SvcError}. Retries only
 * when `spec.retrySafe`: repeating a login or a refresh could count a failed attempt twice or
 * burn a single-use token, so those fail on the first 429 with `retryAfter` set.
 */
export async function send<T>(options: TransportOptions, spec: CallSpec): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const canRetry = spec.retrySafe && attempt < options.retry.retries;
    const limits = new AttemptLimits(options.timeoutMs, spec.call?.signal);
    try {
      let response: HttpAnswer;
      try {
        response = await options.request(urlOf(options.baseUrl, spec), request(options, spec, limits));
      } catch (error) {
        if (spec.call?.signal?.aborted) throw error;
        if (canRetry) {
          await sleep(backoffMs(attempt, options.retry));
          continue;
        }
        throw new SvcError('network_error', 0, `svc API unreachable: ${(error as Error).message}`, { cause: error });
      }
      if (response.status === 429 && canRetry) {
        const retryAfter = parseRetryAfter(response.header('retry-after'));
        const wait = Math.max(backoffMs(attempt, options.retry), (retryAfter ?? 0) * 1000);
        // A wait longer than maxMs (an hour-long sign-up window) is the caller's to decide on.
        if (wait <= options.retry.maxMs) {
          await response.discard();
          await sleep(wait);
          continue;
        }
      }
      // The deadline covers reading the body too; an answer cut off is a network error as well.
      return await unwrap<T>(response).catch((error: unknown) => {
        if (error instanceof SvcError || spec.call?.signal?.aborted) throw error;
        throw new SvcError('network_error', 0, `svc API answer cut off: ${(error as Error).message}`, { cause: error });
      });
    } finally {
      limits.end();
    }
  }
}

/**
 * One attempt's limits: `timeoutMs` from its start (a TimeoutError, as AbortSignal.timeout gives)
 * and the caller's signal. A requester that enforces them itself (`undiciRequester`) reads
 * `timeoutMs` and `callerSignal`; for one that reads `signal`, an AbortController, a plain timer
 * for what is left of the attempt, and a listener on the caller's signal are made then, and cleared
 * by `end()`. Rather than AbortSignal.timeout and AbortSignal.any: those cost about 0.1 ms of CPU a
 * call on Node 20; and no controller at all for the undici requester (bench/README.md, round 7).
 */
class AttemptLimits {
  private readonly started = Date.now();
  private controller: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private follow: (() => void) | undefined;

  constructor(
    readonly timeoutMs: number,
    readonly outer: AbortSignal | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    const controller = (this.controller = new AbortController());
    const left = Math.max(0, this.timeoutMs - (Date.now() - this.started));
    this.timer = setTimeout(() => controller.abort(timeoutError()), left);
    const outer = this.outer;
    if (outer?.aborted) controller.abort(outer.reason);
    else if (outer) outer.addEventListener('abort', (this.follow = () => controller.abort(outer.reason)), { once: true });
    return controller.signal;
  }

  end(): void {
    if (!this.controller) return;
    clearTimeout(this.timer);
    if (this.follow) this.outer?.removeEventListener('abort', this.follow);
  }
}

/** Why an attempt that ran out of time was aborted, as AbortSignal.timeout() says it. */
export function timeoutError(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

function urlOf(baseUrl: string, spec: CallSpec): string {
  const query = spec.query ? `?${new URLSearchParams(spec.query)}` : '';
  return `${baseUrl}${spec.path}${query}`;
}

/**
 * The headers of a call without a body: the project key (undefined: none), then what `call` says
 * of the end user. A caller that sends a call of its own (the session proxy's `GET session`
 * shortcut) sends these, so the API sees the same request either way.
 */
export function callHeaders(apiKey: string | undefined, call: CallOptions | undefined): Record<string, string> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (apiKey !== undefined) headers['X-API-Key'] = apiKey;
  if (call?.clientIp) headers['X-Svc-Client-Ip'] = call.clientIp;
  if (call?.deviceId) headers['X-Svc-Device-Id'] = call.deviceId;
  if (call?.userAgent) headers['X-Svc-User-Agent'] = call.userAgent;
  if (call?.accessToken) headers.Authorization = `Bearer ${call.accessToken}`;
  return headers;
}

function request(options: TransportOptions, spec: CallSpec, limits: AttemptLimits): HttpRequest {
  const headers = callHeaders(spec.withKey === false ? undefined : options.apiKey, spec.call);
  if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
  return {
    method: spec.method,
    headers,
    body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    timeoutMs: limits.timeoutMs,
    callerSignal: limits.outer,
    // An own, enumerable getter, so a requester that spreads the request into fetch's init still passes it.
    get signal() {
      return limits.signal;
    },
  };
}

async function unwrap<T>(response: HttpAnswer): Promise<T> {
  const text = await response.text();
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (a proxy's HTML error page, say): reported below as invalid_response or http status.
  }
  const ok = response.status >= 200 && response.status < 300;
  if (ok && body && 'data' in body) return body.data as T;
  if (!ok && body && typeof body.error === 'string') {
    // Envelope errors carry `message`; the OIDC-style ones carry `error_description`.
    const message = typeof body.message === 'string' ? body.message : typeof body.error_description === 'string' ? body.error_description : body.error;
    throw new SvcError(body.error, response.status, message, { retryAfter: parseRetryAfter(response.header('retry-after')) });
  }
  const code = ok ? 'invalid_response' : `http_${response.status}`;
  throw new SvcError(code, response.status, `Unexpected answer from the svc API (HTTP ${response.status}).`);
}
