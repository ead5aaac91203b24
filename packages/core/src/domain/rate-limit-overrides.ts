import { ENVIRONMENTS, type Environment } from './environment';

/**
 * Every named rate limit of the HTTP API (what each counts, and its defaults, are the API's:
 * apps/api rate-limit-rules.ts and the README's Limits table). Named here because a project's
 * overrides name them and core checks those.
 */
export const RATE_LIMIT_NAMES = [
  'signup',
  'login',
  'refresh',
  'magicLink',
  'passwordReset',
  'loginAddress',
  'loginAccount',
  'mailAccount',
  'magicLinkVerify',
  'passwordUpdate',
  'twoFactorVerify',
  'totpCode',
  'reauthenticate',
  'sessionList',
  'sessionRevoke',
  'magicLinkCode',
  'emailVerify',
  'emailVerifyResend',
  'emailChange',
  'admin',
  'consoleSignIn',
] as const;
export type RateLimitName = (typeof RATE_LIMIT_NAMES)[number];

/**
 * The limits a project can override: all but the admin API's and the console's, which count
 * operators per address, not a project's end users.
 */
export const PROJECT_RATE_LIMIT_NAMES: readonly RateLimitName[] = RATE_LIMIT_NAMES.filter((name) => name !== 'admin' && name !== 'consoleSignIn');

/** One limit's override: either field may be left to the service's value. */
export interface RateLimitOverride {
  limit?: number;
  windowSeconds?: number;
}

/**
 * A project's own limits per environment, over the service's (SVC_RATE_LIMITS or the defaults):
 * e.g. `{ "sandbox": { "signup": { "limit": 500 } } }` lets a Sandbox used by CI sign up 500 users
 * an hour from one address. Limits not named keep the service's values.
 */
export type RateLimitOverrides = Partial<Record<Environment, Partial<Record<RateLimitName, RateLimitOverride>>>>;

/** Bounds of an override: at least one hit; windows up to a day. */
export const RATE_LIMIT_OVERRIDE_BOUNDS = { limit: { min: 1, max: 1_000_000 }, windowSeconds: { min: 1, max: 86_400 } } as const;

/** Why `value` cannot be a project's `rateLimits` (naming the first bad part under `field`), or null. */
export function rateLimitOverridesProblem(value: unknown, field: string): string | null {
  if (!isPlainObject(value)) return `${field} must be an object by environment (production, sandbox).`;
  for (const [environment, limits] of Object.entries(value)) {
    const at = `${field}.${environment}`;
    if (!(ENVIRONMENTS as readonly string[]).includes(environment)) return `${at} is not an environment (production, sandbox).`;
    if (!isPlainObject(limits)) return `${at} must be an object by limit name.`;
    for (const [name, override] of Object.entries(limits)) {
      if (!(PROJECT_RATE_LIMIT_NAMES as readonly string[]).includes(name)) return `${at}.${name} is not a limit (limits: ${PROJECT_RATE_LIMIT_NAMES.join(', ')}).`;
      if (!isPlainObject(override)) return `${at}.${name} must be an object with limit and/or windowSeconds.`;
      for (const [part, number] of Object.entries(override)) {
        if (part !== 'limit' && part !== 'windowSeconds') return `${at}.${name}.${part} is not a field (fields: limit, windowSeconds).`;
        const { min, max } = RATE_LIMIT_OVERRIDE_BOUNDS[part];
        if (!Number.isInteger(number) || (number as number) < min || (number as number) > max) {
          return `${at}.${name}.${part} must be an integer from ${min} to ${max}.`;
        }
      }
    }
  }
  return null;
}

/**
 * The rule in force for limit `name` in an environment of a project: the service's `rule` with
 * the project's override of that environment, if any, laid over it. Keeps every other field of
 * `rule` (the outage policy is the service's, never a project's).
 */
export function effectiveRateLimit<R extends { limit: number; windowSeconds: number }>(rule: R, overrides: RateLimitOverrides | null, environment: Environment, name: RateLimitName): R {
  const override = overrides?.[environment]?.[name];
  if (!override) return rule;
  return { ...rule, limit: override.limit ?? rule.limit, windowSeconds: override.windowSeconds ?? rule.windowSeconds };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
