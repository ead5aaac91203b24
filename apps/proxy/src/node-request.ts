import type { IncomingMessage, ServerResponse } from 'node:http';
import proxyAddr from 'proxy-addr';
import { BodyError, checkDeclaredBody, parseJsonBody, tooLarge } from './core/body';
import { isSvcHeader } from './core/checks';
import type { ProxyAnswer, ProxyRequest } from './core/exchange';
import type { TrustProxy } from './config';

/** Which hops may name the client in `X-Forwarded-*`: Express's `trust proxy` values, compiled the way Express does. */
export type TrustFunction = (address: string, hop: number) => boolean;

/** `trust proxy` off (the default): no hop may name the client. */
const trustNone: TrustFunction = () => false;

export function compileTrust(value: TrustProxy): TrustFunction {
  if (value === false) return trustNone;
  if (value === true) return () => true;
  if (typeof value === 'number') return (_address, hop) => hop < value;
  return proxyAddr.compile(value);
}

/** The path of a request target, without the query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

/**
 * A plain Node request as the proxy reads it (the standalone server, no Express on the way). The
 * address, protocol and host follow `trust proxy` exactly as Express's `req.ip`, `req.protocol`
 * and `req.host` do.
 */
export class NodeProxyRequest implements ProxyRequest {
  readonly method: string;

  constructor(
    private readonly req: IncomingMessage,
    readonly path: string,
    private readonly trust: TrustFunction,
  ) {
    this.method = req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  clientIp(): string | undefined {
    // With no hop trusted proxy-addr answers the socket's address; it would parse X-Forwarded-For first.
    if (this.trust === trustNone) return this.req.socket.remoteAddress || undefined;
    return proxyAddr(this.req, this.trust) || undefined;
  }

  origin(): string {
    const trusted = this.trust(this.req.socket.remoteAddress ?? '', 0);
    const direct = (this.req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
    const protocol = trusted ? firstOf(this.header('x-forwarded-proto')) || direct : direct;
    const host = (trusted && firstOf(this.header('x-forwarded-host'))) || this.header('host') || '';
    return `${protocol}://${host}`;
  }

  json(limit: number): Promise<unknown> {
    return readNodeJson(this.req, limit);
  }
}

function firstOf(list: string | undefined): string | undefined {
  if (list === undefined) return undefined;
  const comma = list.indexOf(',');
  return (comma < 0 ? list : list.slice(0, comma)).trim();
}

type ParsedRequest = IncomingMessage & { body?: unknown; _body?: boolean };

/**
 * The JSON body of a Node request. When the host app's body parser ran first (express.json()
 * mounted before the proxy) the stream is spent: its result is used, within the same size limit.
 * Otherwise the stream is read here.
 */
export async function readNodeJson(req: ParsedRequest, limit: number): Promise<unknown> {
  const header = (name: string) => req.headers[name] as string | undefined;
  if (req._body === true || req.readableEnded || req.body !== undefined) {
    const length = header('content-length');
    if (length !== undefined && Number(length) > limit) throw tooLarge();
    return fromParsed(req.body);
  }
  checkDeclaredBody(header, limit);
  return parseJsonBody(await readText(req, limit));
}

/** What another parser left: an object from express.json(), text from express.text(), bytes from express.raw(). */
function fromParsed(body: unknown): unknown {
  if (typeof body === 'string') return parseJsonBody(body);
  if (Buffer.isBuffer(body)) return parseJsonBody(body.toString('utf8'));
  return body ?? {};
}

function readText(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      // The rest is discarded as it arrives (Node reads a request's leftovers before the next one).
      done();
      req.resume();
      reject(tooLarge());
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = () => {
      done();
      reject(new BodyError(400, 'validation_error', 'The request body could not be read.'));
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/** Deletes every incoming `x-svc-*` header. */
export function stripSvcHeaders(req: IncomingMessage): void {
  for (const name in req.headers) if (isSvcHeader(name)) delete req.headers[name];
}

/**
 * Writes an answer straight onto the response: JSON with its length, the extra headers, each
 * Set-Cookie line. `head` (name, value, name, value...): the caller has set no header on `res`,
 * so the whole head goes out in one `writeHead` with these first, without a `setHeader` per line
 * (each one checked and stored on its own; the standalone server's hot path, bench/README.md,
 * round 11). Without it, headers set before (a host app's, in a mounted proxy) are kept.
 */
export function writeAnswer(res: ServerResponse, answer: ProxyAnswer, head?: readonly string[]): void {
  if (res.headersSent) return;
  const text = JSON.stringify(answer.body);
  const lines = [...(head ?? []), 'Content-Type', 'application/json; charset=utf-8', 'Content-Length', String(Buffer.byteLength(text))];
  for (const name in answer.headers) lines.push(name, answer.headers[name]);
  for (const cookie of answer.cookies) lines.push('Set-Cookie', cookie);
  if (head) res.writeHead(answer.status, lines);
  else {
    res.statusCode = answer.status;
    // Each line replaces a header of the same name, but cookies add to those already set.
    for (let i = 0; i < lines.length; i += 2) {
      if (lines[i] === 'Set-Cookie') res.appendHeader(lines[i], lines[i + 1]);
      else res.setHeader(lines[i], lines[i + 1]);
    }
  }
  res.end(text);
}
