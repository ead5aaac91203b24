// Public surface of @svc/server: embed the HTTP layer in another process, or reuse its pieces.
export { createSvcServer, type StartOptions, type SvcServer, type SvcServerOptions } from './svc-server';
export { configFromObject, type SvcServerConfig } from './config-object';
export { runService } from './run-service';
export type { RequestListener } from './drain';
export { createApp, BODY_LIMIT, type AppConfig, type AppDeps } from './app';
export { ConfigError, loadConfig, type Config, type DatabaseConfig, type LoadConfigOptions, type LogLevel, type TrustProxy } from './config';
export { buildContainer, type Container } from './container';
export { resolveSecrets, type RuntimeConfig } from './dev-secrets';
export { HTTP_STATUS, UNAVAILABLE_RETRY_AFTER_SECONDS } from './http-errors';
export { createLogger } from './logger';
export { DEFAULT_RATE_LIMITS, RATE_LIMIT_KEYS, RATE_LIMIT_NAMES, type RateLimitName, type RateLimitRules } from './middleware/rate-limit';
export { createMetrics, type Metrics, type OutboxDepthSource } from './metrics';
export { buildRateLimitStore, type RateLimitStore, type RateLimitStoreOptions } from './rate-limit-store';
