import { ConfigError, loadConfig } from '../src/composition/config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe('configuration of the edge', () => {
  it('defaults: no schema, key prefix "svc:", no metrics token, every limit with its outage policy', () => {
    const config = loadConfig({});
    expect(config.redisPrefix).toBe('svc:');
    expect(config.metricsToken).toBeNull();
    expect(config.rateLimits.refresh).toEqual({ limit: 30, windowSeconds: 60, whenStoreDown: 'allow' });
    expect(config.rateLimits.loginAccount).toEqual({ limit: 50, windowSeconds: 3600, whenStoreDown: 'local-strict' });
  });

  it('reads SVC_DATABASE_SCHEMA, SVC_REDIS_PREFIX, SVC_METRICS_TOKEN and overrides of the added limits', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/svc',
      SVC_DATABASE_SCHEMA: 'tenant_a',
      SVC_REDIS_PREFIX: 'svc:staging:',
      SVC_METRICS_TOKEN: 'm'.repeat(32),
      SVC_RATE_LIMITS: '{"loginAddress":{"limit":500},"twoFactorVerify":{"windowSeconds":600}}',
    });
    expect(config.database).toEqual({ kind: 'postgres', url: 'postgres://u:p@db:5432/svc', schema: 'tenant_a' });
    expect(config.redisPrefix).toBe('svc:staging:');
    expect(config.metricsToken).toBe('m'.repeat(32));
    expect(config.rateLimits.loginAddress).toEqual({ limit: 500, windowSeconds: 900, whenStoreDown: 'local-strict' });
    expect(config.rateLimits.twoFactorVerify).toEqual({ limit: 5, windowSeconds: 600, whenStoreDown: 'local-strict' });
  });

  it.each([
    [{ SVC_DATABASE_SCHEMA: 'tenant_a' }, 'SVC_DATABASE_SCHEMA needs DATABASE_URL (a PostgreSQL database).'],
    [{ DATABASE_URL: 'postgres://db/svc', SVC_DATABASE_SCHEMA: 'Bad-Name' }, 'SVC_DATABASE_SCHEMA must be a lower-case PostgreSQL name (letters, digits, _; at most 63).'],
    [{ SVC_REDIS_PREFIX: 'has space' }, 'SVC_REDIS_PREFIX must be 1 to 64 printable characters without spaces, e.g. "svc:" or "svc:staging:".'],
    [{ SVC_METRICS_TOKEN: 'short' }, 'SVC_METRICS_TOKEN must be at least 32 characters long.'],
    [{ SVC_RATE_LIMITS: '{"refresh":{"whenStoreDown":"allow"}}' }, 'SVC_RATE_LIMITS has an unknown field "refresh.whenStoreDown" (fields: limit, windowSeconds).'],
  ])('%j -> %s', (env, message) => {
    expect(problemsOf(env)).toEqual([message]);
  });
});
