import { isIP } from 'node:net';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AuthError, normalizeEmail, sha256Hex, type RateLimitDecision, type RateLimitRule, type RateLimiter } from '@svc/core';
import { apiKeyOf } from './api-key';

export const RATE_LIMIT_NAMES = ['signup', 'login', 'refresh', 'magicLink', 'passwordReset'] as const;
export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number];
export type RateLimitRules = Record<RateLimitName, RateLimitRule>;

/** The contract's Limits table; every value can be overridden with SVC_RATE_LIMITS. */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimitRules> = {
  signup: { limit: 10, windowSeconds: 60 * 60 },
  login: { limit: 10, windowSeconds: 15 * 60 },
  refresh: { limit: 30, windowSeconds: 60 },
  magicLink: { limit: 5, windowSeconds: 60 * 60 },
  passwordReset: { limit: 5, windowSeconds: 60 * 60 },
};

/** What each limit counts by (the table's "Key" column). Project + environment are always added. */
export const RATE_LIMIT_KEYS: Readonly<Record<RateLimitName, 'ip' | 'ip+email'>> = {
  signup: 'ip',
  login: 'ip+email',
  refresh: 'ip',
  magicLink: 'ip+email',
  passwordReset: 'ip+email',
};

export interface RateLimitOptions {
  limiter: RateLimiter;
  rules: RateLimitRules;
  logger: Logger;
}

/**
 * Counts the request against limit `name`. Runs after the API key (keys are per project and
 * environment) and after body validation (the e-mail part of a key is the validated, normalised
 * address, hashed so that no address sits in the limiter's store).
 */
export function rateLimit(name: RateLimitName, options: RateLimitOptions): RequestHandler {
  const rule = options.rules[name];
  return async (req: Request, res: Response, next: NextFunction) => {
    const decision = await hitOrFailOpen(options, name, limitKey(name, req, res), res);
    if (!decision) return next();
    res.set('RateLimit-Policy', `${rule.limit};w=${rule.windowSeconds}`);
    res.set('RateLimit', `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.resetSeconds}`);
    if (decision.allowed) return next();
    res.set('Retry-After', String(decision.resetSeconds));
    next(new AuthError('rate_limited'));
  };
}

/** Fails open (DESIGN §6): a limiter outage is logged and must not take sign-in down with it. */
async function hitOrFailOpen(options: RateLimitOptions, name: RateLimitName, key: string, res: Response): Promise<RateLimitDecision | null> {
  try {
    return await options.limiter.hit(key, options.rules[name]);
  } catch (error) {
    options.logger.warn({ err: error, requestId: res.locals.requestId, limit: name }, 'rate limiter failed; request let through');
    return null;
  }
}

function limitKey(name: RateLimitName, req: Request, res: Response): string {
  const { scope } = apiKeyOf(res);
  const parts = ['rl', name, scope.projectId, scope.environment, addressKey(clientAddress(req))];
  const email = (res.locals.body as { email?: unknown } | undefined)?.email;
  if (RATE_LIMIT_KEYS[name] === 'ip+email') parts.push(typeof email === 'string' ? sha256Hex(normalizeEmail(email)) : '-');
  return parts.join(':');
}

/**
 * The end user's address. Calls come from customers' servers, so a key-bearing request may name
 * the end user in `X-Svc-Client-Ip` (the SDK and proxy always do, DESIGN §6); otherwise the
 * socket address after TRUST_PROXY. Only use on requests whose API key was accepted.
 */
export function clientAddress(req: Request): string {
  const named = req.get('x-svc-client-ip')?.trim();
  if (named && isIP(named)) return named;
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
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
    text = text.slice(0, dotted.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => parseInt(group, 16).toString(16));
}
