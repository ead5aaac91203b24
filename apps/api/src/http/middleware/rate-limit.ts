import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { AuthError, effectiveRateLimit, hitAllOf, normalizeEmail, sha256Hex, type FailoverRule, type RateLimitDecision, type RateLimitedTally, type RateLimiter, type ResolvedApiKey } from '@svc/core';
import { unverifiedSubject } from './bearer';
import { addressKey, clientAddress } from './client-address';
import { RATE_LIMIT_KEYS, storeDownPolicy, type RateLimitName, type RateLimitRules } from './rate-limit-rules';

// The names, defaults and key kinds of the limits live in rate-limit-rules.ts.

export interface RateLimitOptions {
  limiter: RateLimiter;
  rules: RateLimitRules;
  logger: Logger;
  /** Where refusals of requests with an API key are counted per environment (the overview's figure). */
  tally?: Pick<RateLimitedTally, 'note'>;
}

/**
 * Counts the request against each named limit. Runs after the API key (limits are per project and
 * environment) and after body validation (the e-mail in a key is the validated, normalised
 * address, hashed so that no address sits in the limiter's store). See {@link countLimits}.
 */
export function rateLimit(names: RateLimitName | readonly RateLimitName[], options: RateLimitOptions): RequestHandler {
  const list: readonly RateLimitName[] = typeof names === 'string' ? [names] : names;
  return async (req: Request, res: Response, next: NextFunction) => {
    await countLimits(list, options, req, res);
    next();
  };
}

/**
 * Hits each named limit for this request and throws `rate_limited` when one refuses. Every limit
 * is hit, even once one refuses, so refused attempts still count towards the wider caps. Used by
 * the middleware and by routes that spend a limit part-way through (the login's per-account
 * limit, only for clients the account does not know). The answer carries the headers of the
 * tightest limit of the whole request so far: the first that refused, else the one with the
 * fewest hits left.
 */
export async function countLimits(names: readonly RateLimitName[], options: RateLimitOptions, req: Request, res: Response): Promise<void> {
  const keys = names.map((name) => limitKey(name, req, res));
  const decisions = await hitOrFailOpen(options, names, keys, res);
  names.forEach((name, i) => refundIfServerFails(res, options, name, keys[i], decisions[i]));
  const earlier = res.locals.rateLimitTightest as Counted | undefined;
  const tightest = pickTightest(earlier ? [earlier.name, ...names] : names, earlier ? [earlier.decision, ...decisions] : decisions);
  if (!tightest) return;
  res.locals.rateLimitTightest = tightest;
  const { name, decision } = tightest;
  // The decision's limit, not the configured one: during a Redis outage it is the stricter local limit.
  res.set('RateLimit-Policy', `${decision.limit};w=${ruleOf(options, name, res).windowSeconds}`);
  res.set('RateLimit', `limit=${decision.limit}, remaining=${decision.remaining}, reset=${decision.resetSeconds}`);
  if (decision.allowed) return;
  res.set('Retry-After', String(decision.resetSeconds));
  res.locals.rateLimited = name; // read by the metrics
  // Counted per environment only with a key: a key-less request's project is merely claimed.
  const key = res.locals.apiKey as ResolvedApiKey | undefined;
  if (key) options.tally?.note(key.scope);
  throw new AuthError('rate_limited');
}

/** One limit's decision for this request. */
interface Counted {
  name: RateLimitName;
  decision: RateLimitDecision;
}

/**
 * One hit on `name` for this request, spent later by calling the answer (e.g. by work that runs
 * after the answer was sent): the key is taken from the request now. Resolves the decision, or
 * null when the limiter failed (logged; the caller lets the work go on, like a failing limiter
 * lets a request through). Sets no headers: the answer may be gone by then.
 */
export function deferredHit(name: RateLimitName, options: RateLimitOptions, req: Request, res: Response): () => Promise<RateLimitDecision | null> {
  const key = limitKey(name, req, res);
  return async () => (await hitOrFailOpen(options, [name], [key], res))[0];
}

/**
 * Gives the hit back if the request ends in a 5xx: the service failed, not the caller, and a
 * database outage must not leave every user's budget spent once it is over. Refused hits (429)
 * and 4xx answers keep counting. The refund runs once the answer is sent; a limiter that fails
 * to refund is logged, like one that fails to count.
 */
function refundIfServerFails(res: Response, options: RateLimitOptions, name: RateLimitName, key: string, decision: RateLimitDecision | null): void {
  if (!decision) return; // nothing was counted
  res.once('finish', () => {
    if (res.statusCode < 500) return;
    options.limiter.refund(key, ruleOf(options, name, res), decision.window).catch((error: unknown) => {
      options.logger.warn({ err: error, requestId: res.locals.requestId, limit: name }, 'rate limiter failed to refund a failed request');
    });
  });
}

function pickTightest(names: readonly RateLimitName[], decisions: Array<RateLimitDecision | null>): Counted | null {
  let best: Counted | null = null;
  decisions.forEach((decision, i) => {
    if (decision && (best === null || tighter(decision, best.decision))) best = { name: names[i], decision };
  });
  return best;
}

/** A refusal beats an allowance (the first refusal stays); among allowances, fewer hits left wins. */
function tighter(a: RateLimitDecision, b: RateLimitDecision): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  return a.allowed && a.remaining < b.remaining;
}

/**
 * One hit on each named limit (at `keys`), in one call to the limiter (one Redis round trip). A
 * limiter that throws (one not wrapped in FailoverRateLimiter) fails open (docs/security.md#rate-limits):
 * logged, and the request goes on, every decision null. The container's FailoverRateLimiter never
 * throws; it applies each rule's `whenStoreDown` instead.
 */
async function hitOrFailOpen(options: RateLimitOptions, names: readonly RateLimitName[], keys: readonly string[], res: Response): Promise<Array<RateLimitDecision | null>> {
  // FailoverRateLimiter reads `whenStoreDown`; other limiters ignore it.
  const hits = names.map((name, i) => ({ key: keys[i], rule: { ...ruleOf(options, name, res), whenStoreDown: storeDownPolicy(name, options.rules[name]) } }));
  try {
    return await hitAllOf(options.limiter, hits);
  } catch (error) {
    options.logger.warn({ err: error, requestId: res.locals.requestId, limits: names }, 'rate limiter failed; request let through');
    return names.map(() => null);
  }
}

/**
 * The rule of `name` for this request: the service's, with the project's own override for the
 * key's environment laid over it (core's effectiveRateLimit). Key-less routes use the service's.
 */
function ruleOf(options: RateLimitOptions, name: RateLimitName, res: Response): FailoverRule {
  const key = res.locals.apiKey as ResolvedApiKey | undefined;
  const rule = options.rules[name];
  return key ? effectiveRateLimit(rule, key.project.rateLimits, key.scope.environment, name) : rule;
}

/** `rl:<limit>:<project>:<environment>:<parts of the limit's key kind>`. */
function limitKey(name: RateLimitName, req: Request, res: Response): string {
  const parts = ['rl', name, ...scopeParts(req, res)];
  const kind = RATE_LIMIT_KEYS[name];
  if (kind === 'ip' || kind === 'ip+email') parts.push(addressKey(clientAddress(req, res)));
  if (kind === 'ip+email' || kind === 'email') parts.push(hashedBodyField(res, 'email', normalizeEmail));
  if (kind === 'challenge') parts.push(hashedBodyField(res, 'twoFactorToken'));
  if (kind === 'user') parts.push(sha256Hex(unverifiedSubject(req) ?? '-'));
  return parts.join(':');
}

/**
 * Project and environment of the accepted API key. Key-less routes (magic-link verify) name their
 * project in the `project` query; a value that cannot be an id counts under "-".
 */
function scopeParts(req: Request, res: Response): string[] {
  const key = res.locals.apiKey as ResolvedApiKey | undefined;
  if (key) return [key.scope.projectId, key.scope.environment];
  const project = req.query.project;
  return [typeof project === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(project) ? project : '-', '-'];
}

/** SHA-256 of a validated body field, so no e-mail or token sits in the limiter's store. */
function hashedBodyField(res: Response, field: string, normalize: (value: string) => string = (value) => value): string {
  const value = (res.locals.body as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' ? sha256Hex(normalize(value)) : '-';
}
