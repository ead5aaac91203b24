import { effectiveRateLimit, rateLimitOverridesProblem } from '../src/domain/rate-limit-overrides';
import { serviceWithProject } from './helpers';

// A project's own rate limits: the rule of their shape lives in core, and so does how they apply.

describe('rateLimitOverridesProblem', () => {
  it('accepts overrides by environment and limit name, each field optional', () => {
    expect(rateLimitOverridesProblem({}, 'rateLimits')).toBeNull();
    expect(rateLimitOverridesProblem({ sandbox: { signup: { limit: 500 } }, production: { refresh: { windowSeconds: 120 }, login: {} } }, 'rateLimits')).toBeNull();
  });

  it.each([
    [[], 'rateLimits must be an object by environment (production, sandbox).'],
    [{ staging: {} }, 'rateLimits.staging is not an environment (production, sandbox).'],
    [{ sandbox: [] }, 'rateLimits.sandbox must be an object by limit name.'],
    [{ sandbox: { signups: { limit: 5 } } }, 'rateLimits.sandbox.signups is not a limit'],
    [{ production: { admin: { limit: 5 } } }, 'rateLimits.production.admin is not a limit'],
    [{ production: { consoleSignIn: { limit: 5 } } }, 'rateLimits.production.consoleSignIn is not a limit'],
    [{ sandbox: { signup: 5 } }, 'rateLimits.sandbox.signup must be an object with limit and/or windowSeconds.'],
    [{ sandbox: { signup: { max: 5 } } }, 'rateLimits.sandbox.signup.max is not a field (fields: limit, windowSeconds).'],
    [{ sandbox: { signup: { limit: 0 } } }, 'rateLimits.sandbox.signup.limit must be an integer from 1 to 1000000.'],
    [{ sandbox: { signup: { limit: 2.5 } } }, 'rateLimits.sandbox.signup.limit must be an integer from 1 to 1000000.'],
    [{ production: { refresh: { windowSeconds: 86_401 } } }, 'rateLimits.production.refresh.windowSeconds must be an integer from 1 to 86400.'],
  ])('refuses %j', (value, message) => {
    expect(rateLimitOverridesProblem(value, 'rateLimits')).toContain(message);
  });
});

describe('effectiveRateLimit', () => {
  const rule = { limit: 10, windowSeconds: 3600, whenStoreDown: 'local-strict' as const };

  it("lays the environment's override over the service's rule, keeping the rest", () => {
    const overrides = { sandbox: { signup: { limit: 500 } }, production: { signup: { windowSeconds: 60 } } };
    expect(effectiveRateLimit(rule, overrides, 'sandbox', 'signup')).toEqual({ limit: 500, windowSeconds: 3600, whenStoreDown: 'local-strict' });
    expect(effectiveRateLimit(rule, overrides, 'production', 'signup')).toEqual({ limit: 10, windowSeconds: 60, whenStoreDown: 'local-strict' });
    expect(effectiveRateLimit(rule, overrides, 'sandbox', 'login')).toBe(rule);
    expect(effectiveRateLimit(rule, null, 'sandbox', 'signup')).toBe(rule);
  });
});

describe('the rateLimits project setting', () => {
  it('is checked on create and update, and can be cleared with null', async () => {
    const { service, created } = await serviceWithProject({ rateLimits: { sandbox: { signup: { limit: 100 } } } });
    expect(created.project.rateLimits).toEqual({ sandbox: { signup: { limit: 100 } } });
    await expect(service.admin.updateProject(created.project.id, { rateLimits: { sandbox: { signup: { limit: -1 } } } })).rejects.toMatchObject({
      code: 'validation_error',
      message: 'rateLimits.sandbox.signup.limit must be an integer from 1 to 1000000.',
    });
    expect((await service.admin.updateProject(created.project.id, { rateLimits: null })).rateLimits).toBeNull();
  });
});
