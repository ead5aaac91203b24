import type { RequestHandler } from 'express';
import type { AppDeps } from '../app';
import { checkOrigin, requireApiKey } from '../middleware/api-key';
import { rateLimit, type RateLimitName } from '../middleware/rate-limit';

/** What every key-bearing endpoint runs first: the API key, then the project's allowed origins. */
export function keyed(deps: AppDeps): RequestHandler[] {
  return [requireApiKey(deps.auth), checkOrigin()];
}

/** The named limit of the contract's Limits table, with the configured values. */
export function limited(deps: AppDeps, name: RateLimitName): RequestHandler {
  return rateLimit(name, { limiter: deps.rateLimiter, rules: deps.config.rateLimits, logger: deps.logger });
}
