// Public surface of @svc/server: embed the HTTP layer in another process, or reuse its pieces.
export { createSvcServer, type StartOptions, type SvcServer, type SvcServerOptions } from './composition/svc-server';
export { configFromObject, type SvcServerConfig } from './composition/config-object';
export { runService } from './composition/run-service';
export type { RequestListener } from './composition/drain';
export { createApp, BODY_LIMIT } from './http/app';
export type { AppConfig, AppDeps, TrustProxy } from './http/app-deps';
export { ConfigError, loadConfig, type Config, type DatabaseConfig, type LoadConfigOptions, type LogLevel } from './composition/config';
export { buildContainer, type Container } from './composition/container';
export { resolveSecrets, type RuntimeConfig } from './composition/dev-secrets';
export { HTTP_STATUS, UNAVAILABLE_RETRY_AFTER_SECONDS } from './http/http-errors';
export { createLogger } from './composition/logger';
export { DEFAULT_RATE_LIMITS, RATE_LIMIT_KEYS, RATE_LIMIT_NAMES, type RateLimitName, type RateLimitRules } from './http/middleware/rate-limit-rules';
export { createMetrics, type Metrics, type OutboxDepthSource } from './http/metrics';
export { buildRateLimitStore, type RateLimitStore, type RateLimitStoreOptions } from './composition/rate-limit-store';
