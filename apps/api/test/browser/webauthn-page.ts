import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';

// @simplewebauthn/browser's own UMD build, served as is: no bundler. It defines
// `window.SimpleWebAuthnBrowser` with startRegistration / startAuthentication.
const BROWSER_LIB = join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js');

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>passkeys</title><script src="/simplewebauthn-browser.js"></script></head>
<body><p>svc passkey test page</p></body></html>`;

export interface PageServer {
  /** `http://localhost:<port>`: localhost is a secure context, so WebAuthn runs without TLS. */
  origin: string;
  close(): Promise<void>;
}

/** Serves the test page and the library on an ephemeral loopback port. */
export async function startPageServer(): Promise<PageServer> {
  const library = readFileSync(BROWSER_LIB);
  const server: Server = createServer((req, res) => {
    if (req.url === '/simplewebauthn-browser.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(library);
    } else if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

type Json = Record<string, unknown>;

/** navigator.credentials.create() through @simplewebauthn/browser on the page; the attestation JSON. */
export function createCredential(page: Page, optionsJSON: Json): Promise<Json> {
  return page.evaluate(
    (options) => (globalThis as unknown as { SimpleWebAuthnBrowser: { startRegistration(o: unknown): Promise<Json> } }).SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options }),
    optionsJSON,
  );
}

/** navigator.credentials.get() through @simplewebauthn/browser on the page; the assertion JSON. */
export function getAssertion(page: Page, optionsJSON: Json): Promise<Json> {
  return page.evaluate(
    (options) => (globalThis as unknown as { SimpleWebAuthnBrowser: { startAuthentication(o: unknown): Promise<Json> } }).SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options }),
    optionsJSON,
  );
}
