import { checkDeclaredBody, parseJsonBody, readTextStream } from '../core/body';
import type { ProxyAnswer, ProxyRequest } from '../core/exchange';

/** Per call: what the runtime knows about the connection (Deno's `info.remoteAddr`, Bun's `server.requestIP`). */
export interface WebCallContext {
  /** The end user's address, sent to the API as `X-Svc-Client-Ip`. */
  clientIp?: string;
}

/** How a web handler finds the end user's address when the call does not pass it. */
export type ClientIpReader = (request: Request) => string | undefined;

/** A web `Request` as the proxy reads it. */
export class WebProxyRequest implements ProxyRequest {
  readonly method: string;
  readonly path: string;

  constructor(
    private readonly request: Request,
    private readonly url: URL,
    private readonly address: () => string | undefined,
  ) {
    this.method = request.method;
    this.path = url.pathname;
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  clientIp(): string | undefined {
    return this.address();
  }

  origin(): string {
    return this.url.origin;
  }

  async json(limit: number): Promise<unknown> {
    checkDeclaredBody((name) => this.header(name), limit);
    return parseJsonBody(await readTextStream(this.request.body, limit));
  }
}

/** The address of one call: the context's, else the reader's, else unknown (the API then sees this server's). */
export function addressOf(request: Request, context: unknown, reader: ClientIpReader | undefined): () => string | undefined {
  const given = typeof context === 'object' && context !== null ? (context as WebCallContext).clientIp : undefined;
  return () => (typeof given === 'string' ? given : reader?.(request));
}

/** An answer as a web `Response` (no body for HEAD). */
export function toResponse(method: string, answer: ProxyAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set('Content-Type', 'application/json; charset=utf-8');
  for (const cookie of answer.cookies) headers.append('Set-Cookie', cookie);
  return new Response(method === 'HEAD' ? null : JSON.stringify(answer.body), { status: answer.status, headers });
}
