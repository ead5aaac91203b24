import type { RequestHandler } from 'express';
import type { SecurityEventSink } from '@svc/core';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { routeOf } from './middleware/request-log';

/** Rows per outbox status (MailOutbox.stats()), read at scrape time. */
export type OutboxDepthSource = () => Promise<Record<string, number>>;

/** Webhook messages per status, and the oldest due one's wait in seconds (0 when none waits). */
export type WebhookQueueSource = () => Promise<{ counts: Record<string, number>; oldestDueSeconds: number }>;

/**
 * The service's Prometheus metrics, in a registry of their own: two apps in one process (tests,
 * embedding) never share or clash, and nothing is written to prom-client's global registry.
 */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  signIns: Counter<'route' | 'result'>;
  signUps: Counter<'result'>;
  refreshes: Counter<'result'>;
  replays: Counter;
  rateLimited: Counter<'rule'>;
  limiterStoreFailures: Counter;
  /** Magic-link and reset requests whose work failed after their success answer (no mail sent), by kind. */
  acceptedRequestsFailed: Counter<'kind'>;
  /** Magic links that would have created a user beyond the address's sign-up budget (nobody created, no mail). */
  magicLinkUsersRefused: Counter;
  /** Rows the janitor deleted, by kind (refresh_token, session, one_time_token, outbox_mail, oidc_artifact, known_device, audit_entry, webhook_message, rate_limited_hour). */
  purgedRows: Counter<'kind'>;
  /** Feeds `svc_outbox_depth{status}` once an outbox exists (the container sets it). */
  setOutboxDepthSource(source: OutboxDepthSource): void;
  /** Webhook delivery attempts by result (sent, failed = will be retried, dead). */
  webhookDeliveries: Counter<'result'>;
  /** Seconds from an event to its webhook's delivery. */
  webhookLag: Histogram;
  /** Feeds `svc_webhook_queue{status}` and `svc_webhook_oldest_due_seconds` (the container sets it). */
  setWebhookQueueSource(source: WebhookQueueSource): void;
}

/** Routes whose outcome is a completed (or refused) sign-in, for `svc_sign_ins_total`. */
const SIGN_IN_ROUTES = new Set(['/api/auth/login', '/api/auth/2fa/totp/verify', '/api/auth/passkeys/login/verify', '/api/auth/magic-link/verify', '/api/auth/oauth/token']);

/**
 * How often the event loop's delay is sampled for the `svc_nodejs_eventloop_lag_*` figures, in ms.
 * prom-client's default, 10, is a timer firing 100 times a second, idle or not: 8 ms of CPU a
 * second on an idle server, two thirds of what its main thread spent (bench/README.md, "Round 24"). At 50 a
 * stall of 50 ms or longer is always sampled, a shorter one in proportion to its length, and 20
 * samples a second still give each scrape its percentiles.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/** `withDefaults`: process CPU, memory, event-loop lag (main.ts; tests leave them out). */
export function createMetrics(options: { withDefaults?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.withDefaults) collectDefaultMetrics({ register: registry, prefix: 'svc_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const registers = [registry];
  let outboxSource: OutboxDepthSource | null = null;
  let webhookSource: WebhookQueueSource | null = null;
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests by method, route pattern and status.', labelNames: ['method', 'route', 'status'], registers }),
    httpDuration: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request latency by method and route pattern.',
      labelNames: ['method', 'route'],
      // bcrypt-bound sign-ins sit around 0.1-0.3 s, /me and refresh far below.
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    signIns: new Counter({ name: 'svc_sign_ins_total', help: 'Sign-in answers by route and result (success, failure).', labelNames: ['route', 'result'], registers }),
    signUps: new Counter({ name: 'svc_sign_ups_total', help: 'Sign-up answers by result (success, failure).', labelNames: ['result'], registers }),
    refreshes: new Counter({ name: 'svc_token_refreshes_total', help: 'Token refreshes by result (success, failure).', labelNames: ['result'], registers }),
    replays: new Counter({ name: 'svc_refresh_replays_total', help: "Refresh tokens presented again after rotation (the user's sessions, or that session, revoked as the project chose).", registers }),
    rateLimited: new Counter({ name: 'svc_rate_limited_total', help: 'Requests refused with 429 by rate-limit rule.', labelNames: ['rule'], registers }),
    limiterStoreFailures: new Counter({ name: 'svc_rate_limit_store_failures_total', help: 'Failed calls to the shared rate-limit store (Redis); limits then apply per process.', registers }),
    acceptedRequestsFailed: new Counter({
      name: 'svc_accepted_requests_failed_total',
      help: 'Magic-link and reset requests answered success whose work then failed (no mail sent), by kind (magic_link, password_reset, email_verification).',
      labelNames: ['kind'],
      registers,
    }),
    magicLinkUsersRefused: new Counter({
      name: 'svc_magic_link_users_refused_total',
      help: "Magic links for unknown addresses beyond the client address's sign-up budget (the signup limit): nobody created, no mail sent, success answered.",
      registers,
    }),
    purgedRows: new Counter({ name: 'svc_purged_rows_total', help: 'Rows deleted by the janitor because nobody can use them any more, by kind.', labelNames: ['kind'], registers }),
    setOutboxDepthSource: (source) => {
      outboxSource = source;
    },
    webhookDeliveries: new Counter({ name: 'svc_webhook_deliveries_total', help: 'Webhook delivery attempts by result (sent, failed: retried later, dead).', labelNames: ['result'], registers }),
    webhookLag: new Histogram({
      name: 'svc_webhook_delivery_lag_seconds',
      help: 'Seconds from an event to the delivery of its webhook (retries included).',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 30, 300, 3600, 36000],
      registers,
    }),
    setWebhookQueueSource: (source) => {
      webhookSource = source;
    },
  };
  new Gauge({
    name: 'svc_webhook_queue',
    help: 'Webhook messages by status (absent until webhooks exist).',
    labelNames: ['status'],
    registers,
    async collect() {
      if (!webhookSource) return;
      this.reset();
      for (const [status, count] of Object.entries((await webhookSource()).counts)) this.set({ status }, count);
    },
  });
  new Gauge({
    name: 'svc_webhook_oldest_due_seconds',
    help: 'How long the oldest due webhook message has waited (0 when none waits): delivery lag now.',
    registers,
    async collect() {
      if (webhookSource) this.set((await webhookSource()).oldestDueSeconds);
    },
  });
  new Gauge({
    name: 'svc_outbox_depth',
    help: 'Outbox mails by status (absent until the outbox exists).',
    labelNames: ['status'],
    registers,
    async collect() {
      if (!outboxSource) return;
      this.reset();
      for (const [status, count] of Object.entries(await outboxSource())) this.set({ status }, count);
    },
  });
  return metrics;
}

/** One answer as the metrics count it. */
export interface CountedAnswer {
  method: string;
  /** The route pattern (routeOf), never the raw path. */
  route: string;
  status: number;
  seconds: number;
  /** The rule that refused it with 429, if one did. */
  rateLimitedBy?: unknown;
}

/**
 * Counts every answer when it is sent: by route pattern (never the raw path, so ids and query
 * strings neither leak nor explode the label set) and status, and the auth outcomes derived from
 * route + status; 429s by the rule the rate limiter leaves on `res.locals.rateLimited`. Replays
 * are counted from their event (countEvents).
 */
export function countRequests(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      countAnswer(metrics, {
        method: req.method,
        route: routeOf(req),
        status: res.statusCode,
        seconds: Number(process.hrtime.bigint() - started) / 1e9,
        rateLimitedBy: res.locals.rateLimited,
      });
    });
    next();
  };
}

/** Adds one answer to the counters (countRequests, and hot-path.ts for answers written without Express). */
export function countAnswer(metrics: Metrics, answer: CountedAnswer): void {
  const { method, route, status } = answer;
  metrics.httpDuration.observe({ method, route }, answer.seconds);
  metrics.httpRequests.inc({ method, route, status: String(status) });
  if (typeof answer.rateLimitedBy === 'string') return void metrics.rateLimited.inc({ rule: answer.rateLimitedBy });
  const result = status < 400 ? 'success' : 'failure';
  if (SIGN_IN_ROUTES.has(route)) metrics.signIns.inc({ route, result });
  else if (route === '/api/auth/signup') metrics.signUps.inc({ result });
  else if (route === '/api/auth/refresh') metrics.refreshes.inc({ result });
}

/** `sink`, counting the security events the metrics show (replayed refresh tokens). */
export function countEvents(sink: SecurityEventSink, metrics: Pick<Metrics, 'replays'>): SecurityEventSink {
  return {
    emit: async (scope, event) => {
      await sink.emit(scope, event);
      // Counted once recorded: a replay whose record was refused revoked nothing, and its retry counts.
      if (event.type === 'refresh_token.reused') metrics.replays.inc();
    },
  };
}
