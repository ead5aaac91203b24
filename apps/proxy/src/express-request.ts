import type { Request } from 'express';
import type { ProxyRequest } from './core/exchange';
import { pathOf, readNodeJson } from './node-request';

/** An Express request as the proxy reads it. Express supplies the address, protocol and host (honouring `trust proxy`). */
export class ExpressProxyRequest implements ProxyRequest {
  readonly method: string;
  readonly path: string;

  constructor(private readonly req: Request) {
    this.method = req.method;
    this.path = pathOf(req.originalUrl);
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  clientIp(): string | undefined {
    return this.req.ip ?? this.req.socket.remoteAddress ?? undefined;
  }

  origin(): string {
    return `${this.req.protocol}://${this.req.host}`;
  }

  json(limit: number): Promise<unknown> {
    return readNodeJson(this.req, limit);
  }
}
