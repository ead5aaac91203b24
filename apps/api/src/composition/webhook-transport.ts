import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { WebhookDelivery, WebhookResponse, WebhookTransport } from '@svc/core';
import { Webhook } from 'standardwebhooks';

/** Addresses no webhook may reach unless the operator allows it: loopback, private, link-local and the like. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');

/** True when `address` is loopback, private, link-local, unspecified, multicast or reserved (IPv4-mapped IPv6 included). */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface HttpWebhookTransportOptions {
  /** SVC_WEBHOOKS_ALLOW_PRIVATE: skip the address check (receivers on loopback or a private network). */
  allowPrivate: boolean;
  /** Per try, connection and answer together; default 10 s. */
  timeoutMs?: number;
}

/**
 * Signs with the `standardwebhooks` library (one `v1,` signature per secret, space-separated)
 * and POSTs the body. Before every try the host name is resolved and every address checked; the
 * connection then goes to the address that was checked (no second lookup a rebinding DNS server
 * could answer differently). Redirects are not followed: a 3xx is a failed try.
 */
export class HttpWebhookTransport implements WebhookTransport {
  private readonly timeoutMs: number;

  constructor(private readonly options: HttpWebhookTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async deliver(delivery: WebhookDelivery, signal?: AbortSignal): Promise<WebhookResponse> {
    const url = new URL(delivery.url);
    let address: { address: string; family: number };
    try {
      address = await this.vettedAddress(url.hostname.replace(/^\[|\]$/g, ''));
    } catch (error) {
      return failure((error as Error).message);
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks',
      'webhook-id': delivery.webhookId,
      'webhook-timestamp': String(Math.floor(delivery.timestamp.getTime() / 1000)),
      'webhook-signature': delivery.secrets.map((secret) => new Webhook(secret).sign(delivery.webhookId, delivery.timestamp, delivery.payload)).join(' '),
    };
    return this.post(url, headers, delivery.payload, address, signal);
  }

  /** The first address of `host`, after checking every one it resolves to. */
  private async vettedAddress(host: string): Promise<{ address: string; family: number }> {
    const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true }).catch(() => []);
    if (addresses.length === 0) throw new Error('target host does not resolve');
    if (!this.options.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
      throw new Error('target address not allowed (loopback, private or link-local)');
    }
    return addresses[0];
  }

  private post(url: URL, headers: Record<string, string>, body: string, vetted: { address: string; family: number }, signal?: AbortSignal): Promise<WebhookResponse> {
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [vetted]);
      else callback(null, vetted.address, vetted.family);
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      // `signal` (the service's stop) destroys the request: the socket closes and 'error' answers.
      const req = send(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinned, timeout: this.timeoutMs, signal }, (res) => {
        res.resume();
        res.on('end', () => resolve(answerOf(res)));
        res.on('error', () => resolve(answerOf(res)));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', (error) => resolve(failure(signal?.aborted ? ABORTED : `request failed: ${(error as NodeJS.ErrnoException).code ?? error.message}`)));
      req.end(body);
    });
  }
}

/** The delivery log's note for a try cut by the service's stop (`deliver`'s signal). */
const ABORTED = 'aborted before an answer came (the service was stopping)';

function answerOf(res: IncomingMessage): WebhookResponse {
  const status = res.statusCode ?? 0;
  const ok = status >= 200 && status < 300;
  return { statusCode: status, retryAfterSeconds: retryAfterOf(res.headers['retry-after']), error: ok ? null : `HTTP ${status}` };
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or null. */
export function retryAfterOf(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

function failure(error: string): WebhookResponse {
  return { statusCode: null, retryAfterSeconds: null, error };
}
