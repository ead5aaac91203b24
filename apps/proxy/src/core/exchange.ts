import type { CallOptions } from '@svc/sdk';
import { readRequestCookies, type RequestCookies } from './request-cookies';
import type { CookieNames } from './options';
import { randomId } from './random';

/**
 * What the proxy reads of a request. Each adapter fills it from its own request object (a web
 * `Request`, a Node/Express request), so the proxy's rules exist once and neither side pays for
 * building the other's objects.
 */
export interface ProxyRequest {
  /** Upper-case method. */
  readonly method: string;
  /** The path as the browser sent it, without the query (it names the cookie paths to expire). */
  readonly path: string;
  /** A request header by lower-case name. */
  header(name: string): string | undefined;
  /** The end user's address, sent to the API as `X-Svc-Client-Ip`. */
  clientIp(): string | undefined;
  /** `protocol://host[:port]` the browser used, as the host app sees it. */
  origin(): string;
  /** The JSON body: already parsed by the host app, or read here (at most `limit` bytes). Throws {@link BodyError}s. */
  json(limit: number): Promise<unknown>;
}

/** What the proxy answers; each adapter writes it out in its own way. */
export interface ProxyAnswer {
  status: number;
  /** `{ data }` or `{ error, message }`. */
  body: unknown;
  /** Further headers (Cache-Control, Retry-After). */
  headers: Record<string, string>;
  /** Set-Cookie lines, in order. */
  cookies: string[];
}

/** One request through the proxy: the request, its parsed cookies and body, and the answer being built. */
export class Exchange {
  readonly answer: ProxyAnswer = { status: 200, body: undefined, headers: {}, cookies: [] };
  /** The POST body (undefined for GET). */
  body: unknown = undefined;
  /** Path parameters of the route (already percent-decoded). */
  params: Record<string, string> = {};
  /** The session cookies were expired already (once is enough). */
  cleared = false;
  private parsedCookies: RequestCookies | undefined;
  private address: { value: string | undefined } | undefined;
  private issued: string | undefined;

  constructor(
    readonly request: ProxyRequest,
    private readonly names: CookieNames,
  ) {}

  get cookies(): RequestCookies {
    return (this.parsedCookies ??= readRequestCookies(this.request.header('cookie'), this.names));
  }

  get clientIp(): string | undefined {
    return (this.address ??= { value: this.request.clientIp() }).value;
  }

  /** Options of a call that is not a sign-in: the client address and the browser's user agent (the user's device list shows it). */
  call(): CallOptions {
    return { clientIp: this.clientIp, userAgent: this.request.header('user-agent') };
  }

  /**
   * Options of a sign-in call: the client address and the browser's device id. A browser without
   * one gets a fresh id here, and keeps it (a cookie) if the call signs it in.
   */
  signInCall(): CallOptions {
    return { ...this.call(), deviceId: this.cookies.device ?? (this.issued ??= randomId()) };
  }

  /** The device id this request issued (the browser had none), to be set as a cookie with the session. */
  get issuedDeviceId(): string | undefined {
    return this.cookies.device === undefined ? this.issued : undefined;
  }

  /** A refresh shared with a concurrent request used that request's new device id: keep the same one. */
  adoptDeviceId(deviceId: string | undefined): void {
    if (deviceId !== undefined && this.cookies.device === undefined) this.issued = deviceId;
  }

  ok(data: unknown, status = 200): void {
    this.answer.status = status;
    this.answer.body = { data };
  }

  /** The contract's error envelope. */
  fail(status: number, error: string, message: string): void {
    this.answer.status = status;
    this.answer.body = { error, message };
  }
}
