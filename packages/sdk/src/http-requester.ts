/** One HTTP request as the transport sends it: the body is JSON text already. */
export interface HttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  /**
   * Aborts the request and the reading of its answer (the per-attempt deadline or the caller's).
   * The transport's requests make it when it is first read; the deadline still counts from the
   * attempt's start.
   */
  readonly signal: AbortSignal;
  /**
   * The same two limits as data, set by the transport, for a requester that enforces them itself
   * and never reads `signal` (`undiciRequester`): the attempt's milliseconds (a TimeoutError
   * DOMException when they run out) and the caller's own signal, if any. An AbortController
   * made for every call costs the session proxy about a sixth of its CPU per request on Node 20
   * (bench/README.md, round 7).
   */
  readonly timeoutMs?: number;
  readonly callerSignal?: AbortSignal;
}

/** What the transport reads of an answer. */
export interface HttpAnswer {
  status: number;
  /** A response header by name (case-insensitive), or null. */
  header(name: string): string | null;
  /** The whole body as text; rejects when the answer is cut off or the signal aborts. */
  text(): Promise<string>;
  /** Drops the body unread (before a retry), freeing the connection. */
  discard(): Promise<void>;
}

/**
 * Sends one request and resolves once the status and headers arrived; never follows redirects,
 * never rejects for an HTTP status. `fetchRequester` fits any runtime; `undiciRequester` from
 * `@svc/sdk/node` does the same work on Node at about a third of fetch's CPU (bench/README.md).
 */
export type HttpRequester = (url: string, request: HttpRequest) => Promise<HttpAnswer>;

/** The requester over a fetch implementation (the SDK's default, with the global fetch). */
export function fetchRequester(fetchImpl: typeof fetch): HttpRequester {
  return async (url, request) => {
    const response = await fetchImpl(url, { method: request.method, headers: request.headers, body: request.body, signal: request.signal, redirect: 'manual' });
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text: () => response.text(),
      discard: async () => {
        await response.body?.cancel();
      },
    };
  };
}
