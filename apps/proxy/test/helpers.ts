import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createSvcClient, type HttpRequester } from '@svc/sdk';
import { undiciRequester } from '@svc/sdk/node';
import { createSessionProxy, type SessionProxyOptions } from '../src';

export { startRealApi, type RealApi, type TestProject } from '../../../packages/sdk/test/real-api';
export { totpCode } from '../../../packages/sdk/test/totp-code';

export interface RunningProxy {
  url: string;
  /** Method and path of every call the proxy made to the API, in order. */
  upstream: string[];
  close(): Promise<void>;
}

/**
 * The proxy mounted in a host Express app on a loopback port, calling the API through the
 * requester the proxy uses by default (undici's request), wrapped to record each upstream call
 * (to count branding and refresh calls).
 */
export async function startProxy(options: SessionProxyOptions & { baseUrl: string; mount?: (app: express.Express) => void }): Promise<RunningProxy> {
  const upstream: string[] = [];
  const send = undiciRequester();
  const recording: HttpRequester = (url, request) => {
    upstream.push(`${request.method} ${new URL(url).pathname}`);
    return send(url, request);
  };
  const svc = createSvcClient({ apiKey: options.apiKey, baseUrl: options.baseUrl, request: recording });
  const app = express();
  app.use(createSessionProxy({ ...options, svc }));
  options.mount?.(app);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upstream,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** One Set-Cookie line, split into its value and attributes (attribute names lower-cased). */
export interface SetCookie {
  name: string;
  value: string;
  attributes: Record<string, string | true>;
}

export function setCookiesOf(res: Response): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...rest] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const attributes: Record<string, string | true> = {};
    for (const attribute of rest) {
      const eq = attribute.indexOf('=');
      if (eq === -1) attributes[attribute.toLowerCase()] = true;
      else attributes[attribute.slice(0, eq).toLowerCase()] = attribute.slice(eq + 1);
    }
    cookies[pair.slice(0, at)] = { name: pair.slice(0, at), value: decodeURIComponent(pair.slice(at + 1)), attributes };
  }
  return cookies;
}

/** A minimal browser cookie jar for one site: keeps what Set-Cookie says, drops Max-Age=0. */
export class CookieJar {
  readonly values = new Map<string, string>();

  store(res: Response): this {
    for (const cookie of Object.values(setCookiesOf(res))) {
      if (cookie.attributes['max-age'] === '0') this.values.delete(cookie.name);
      else this.values.set(cookie.name, cookie.value);
    }
    return this;
  }

  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
  }
}

/** A same-origin JSON POST as the browser client sends it (with Origin). */
export function postJson(proxy: { url: string }, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${proxy.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: proxy.url, ...headers },
    body: JSON.stringify(body),
  });
}

export const PASSWORD = 'correct horse battery';

/** The parsed JSON body of a response, untyped (tests assert its shape). */
export async function json(res: Response): Promise<any> {
  return res.json();
}
