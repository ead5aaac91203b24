import type { RequestHandler } from 'express';
import type { AppDeps } from '../app-deps';
import { checkOrigin, requireApiKey } from '../middleware/api-key';
import { ReauthenticationDto } from '../dto/account-dtos';
import { rateLimit, type RateLimitOptions } from '../middleware/rate-limit';
import type { RateLimitName } from '../middleware/rate-limit-rules';
import { validateOptionalBody } from '../middleware/validate';

/** What every key-bearing endpoint runs first: the API key, then the project's allowed origins. */
export function keyed(deps: AppDeps): RequestHandler[] {
  return [requireApiKey(deps.auth), checkOrigin()];
}

/**
 * The named limits (rate-limit-rules.ts) with the configured values, checked together: e.g.
 * `limited(deps, ...LOGIN_LIMITS)`. Place it after `keyed` and `validateBody`.
 */
export function limited(deps: AppDeps, ...names: RateLimitName[]): RequestHandler {
  return rateLimit(names, limitOptions(deps));
}

/** The limiter with the configured values, for limits a route spends itself (`deferredHit`). */
export function limitOptions(deps: AppDeps): RateLimitOptions {
  return { limiter: deps.rateLimiter, rules: deps.config.rateLimits, logger: deps.logger, tally: deps.rateLimitedTally };
}

/**
 * What a sensitive change runs after `keyed`: its optional proof (`currentPassword`, `totpCode`)
 * checked into ReauthenticationDto, and the per-user `reauthenticate` limit on guessing it.
 */
export function reauthenticated(deps: AppDeps): RequestHandler[] {
  return [validateOptionalBody(ReauthenticationDto), limited(deps, 'reauthenticate')];
}
