import type { OidcProviderHost } from '@svc/adapters-oidc-provider';
import type { AuthService, ConsoleSignOutStore, OidcService, RateLimitedTally, RateLimiter } from '@svc/core';
import type { Logger } from 'pino';
import type { AfterAnswer } from './after-answer';
import type { Metrics } from './metrics';
import type { RateLimitRules } from './middleware/rate-limit-rules';

// The types the HTTP layer shares: what createApp is given, read by every router. They live apart
// from app.ts, which imports every router, so no router has to import the file that mounts it.

/** Express's `trust proxy` setting: off, on, a hop count, or addresses/subnets/names. */
export type TrustProxy = boolean | number | string[];

/** The part of the configuration the HTTP layer reads. */
export interface AppConfig {
  adminToken: string;
  trustProxy: TrustProxy;
  rateLimits: RateLimitRules;
  /** Scrape-only bearer token for GET /metrics (the admin token works too); null = none. */
  metricsToken?: string | null;
  /** The bound of GET /readyz's probe, in ms (SVC_READY_TIMEOUT_MS); default 2000. */
  readyTimeoutMs?: number;
}

/** Everything the HTTP layer needs; built by container.ts, or by tests over in-memory fakes. */
export interface AppDeps {
  auth: AuthService;
  rateLimiter: RateLimiter;
  logger: Logger;
  config: AppConfig;
  /** Prometheus metrics; shared with the container (limiter failures, outbox). Default: a fresh registry. */
  metrics?: Metrics;
  /** Resolves when the service can do its work (the database takes writes); rejects otherwise. */
  ready(): Promise<void>;
  /** True once the service is shutting down: /readyz then answers 503 so balancers drain it. */
  stopping?: () => boolean;
  /** Runs the work magic-link and reset requests leave for after their answer; default: a fresh one. */
  afterAnswer?: AfterAnswer;
  /** Counts requests refused with 429 per environment; without it they are only in the metrics. */
  rateLimitedTally?: Pick<RateLimitedTally, 'note' | 'flush'>;
  /** The hosted OIDC provider; without it, /api/oidc and `POST /api/auth/oidc/grant` are not mounted. */
  oidc?: AppOidc;
  /** Console sessions signed out before their expiry (the database's); without it a sign-out only clears the cookie. */
  consoleSignOuts?: ConsoleSignOutStore;
}

/** What the mail-sending routes need beyond AppDeps (createApp fills both in). */
export type MailRouteDeps = AppDeps & { afterAnswer: AfterAnswer; metrics: Metrics };

/** The hosted OIDC provider's two faces: its issuers (HTTP) and its use cases (`POST /api/auth/oidc/grant`, admin). */
export interface AppOidc {
  provider: Pick<OidcProviderHost, 'handle'>;
  service: OidcService;
}
