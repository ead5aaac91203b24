import { Agent, request, type Dispatcher } from 'undici';
import type { HttpRequester } from './http-requester';

export interface UndiciRequesterOptions {
  /** Connections kept per API origin (default: no limit, as undici's default agent). */
  connections?: number;
  /** An undici dispatcher of your own (a ProxyAgent, a MockAgent in tests); overrides `connections`. */
  dispatcher?: Dispatcher;
}

/**
 * The SDK's requester over undici's `request` (Node only; `@svc/sdk/node`). Same answers as the
 * fetch one: no redirects followed, no rejection for a status, the signal also cuts off a body
 * still arriving. On Node 20 a `/me` call costs ~100 µs of CPU this way against ~300 µs through
 * fetch (its Request, Headers and web-stream objects); the session proxy uses it.
 */
export function undiciRequester(options: UndiciRequesterOptions = {}): HttpRequester {
  const dispatcher = options.dispatcher ?? new Agent(options.connections === undefined ? {} : { connections: options.connections });
  return async (url, init) => {
    const answer = await request(url, { method: init.method, headers: init.headers, body: init.body, signal: init.signal, dispatcher });
    return {
      status: answer.statusCode,
      header: (name) => {
        const value = answer.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
      text: () => answer.body.text(),
      discard: () => answer.body.dump(),
    };
  };
}
