import { isIP } from 'node:net';
import type { Request, Response } from 'express';
import { isDeviceId, type SignInClient } from '@svc/core';

/**
 * The end user's address. Calls come from customers' servers, so a request whose API key was
 * accepted may name the end user in `X-Svc-Client-Ip` (the SDK and proxy always do; docs/security.md#rate-limits).
 * Without an accepted key the header is ignored: anyone could otherwise pick a fresh address per
 * request and never be limited. Fallback: the socket address after TRUST_PROXY.
 */
export function clientAddress(req: Request, res: Response): string {
  const named = res.locals.apiKey !== undefined ? req.get('x-svc-client-ip')?.trim() : undefined;
  if (named && isIP(named)) return named;
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * The client of a sign-in, as known clients count it (and the session records it): the address as
 * rate limits key it, its user agent, and the caller's device id from `X-Svc-Device-Id` (the SDK sends `CallOptions.deviceId`, the session
 * proxy a per-browser cookie). Like `X-Svc-Client-Ip`, the header counts only on requests whose
 * API key was accepted; a value that is not 1-128 printable ASCII characters counts as none.
 */
export function signInClient(req: Request, res: Response): SignInClient {
  const keyed = res.locals.apiKey !== undefined;
  const named = keyed ? req.get('x-svc-device-id') : undefined;
  return { address: addressKey(clientAddress(req, res)), deviceId: isDeviceId(named) ? named : undefined, userAgent: userAgentOf(req, keyed) };
}

/**
 * The end user's browser or app, for the device list only: `X-Svc-User-Agent` on requests whose
 * API key was accepted (the SDK passes its caller's, the session proxy the browser's), else the
 * request's own `User-Agent`. Core cuts and cleans it (storableUserAgent).
 */
function userAgentOf(req: Request, keyed: boolean): string | undefined {
  return (keyed ? req.get('x-svc-user-agent') : undefined) ?? req.get('user-agent');
}

/**
 * IPv4 as is; IPv6 by its /64, since one subscriber usually holds a whole /64 and could
 * otherwise rotate addresses to dodge every limit. IPv4-mapped IPv6 counts as IPv4.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (isIP(address) !== 6) return address;
  return `${expandIpv6(address).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros. */
function expandIpv6(address: string): string[] {
  let text = address.split('%')[0];
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16).toString(16));
}
