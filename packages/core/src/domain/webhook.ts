import type { TenantScope } from './environment';
import type { AuditEntry, SecurityEventType } from './security-event';

/** A receiver of a project environment's events (Standard Webhooks). */
export interface WebhookEndpoint {
  id: string;
  url: string;
  /** The event types it receives; empty = every type. */
  eventTypes: SecurityEventType[];
  enabled: boolean;
  /** Why the service turned it off (`gone`: the receiver answered 410), or null. */
  disabledReason: string | null;
  /** The signing secret (`whsec_...`), sealed with the SecretBox. */
  sealedSecret: string;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  sealedPreviousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'sending', 'delivered', 'dead'] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

/** One event for one endpoint: delivered at least once, under one `webhook-id` however often it is tried. */
export interface WebhookMessage {
  id: string;
  endpointId: string;
  eventType: SecurityEventType;
  /** The JSON body, exactly as signed and sent. */
  payload: string;
  status: WebhookMessageStatus;
  attempts: number;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A message as the worker claims it: with its tenant. */
export type ClaimedWebhookMessage = WebhookMessage & { scope: TenantScope };

/** One try of a delivery, for the delivery log. */
export interface WebhookAttempt {
  messageId: string;
  attempt: number;
  at: Date;
  /** The receiver's status, or null when none came (refused target, timeout, network). */
  statusCode: number | null;
  /** Why it failed, secret-free; null on success. */
  error: string | null;
  durationMs: number;
}

/**
 * The Standard Webhooks retry schedule: at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * after each failure (delays before attempts 1 to 8); after the last one the message is dead.
 */
export const WEBHOOK_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as const;

/** How long a rotated-out secret keeps signing beside the new one. */
export const WEBHOOK_SECRET_OVERLAP_SECONDS = 24 * 60 * 60;

/** The longest `Retry-After` honoured (the schedule's longest step). */
export const MAX_RETRY_AFTER_SECONDS = 36000;

/**
 * When to try again after `attemptsMade` failed attempts, or null when the schedule is spent.
 * The step is jittered by up to ±10% (`random` in [0, 1)) so receivers coming back from an
 * outage are not hit by every sender at once; a `Retry-After` the receiver sent is honoured
 * when it asks for more, up to the schedule's longest step.
 */
export function nextWebhookAttempt(now: Date, attemptsMade: number, random: number, retryAfterSeconds?: number | null): Date | null {
  const step = WEBHOOK_RETRY_SCHEDULE_SECONDS[attemptsMade];
  if (step === undefined) return null;
  const jittered = step * (0.9 + 0.2 * random);
  const wanted = retryAfterSeconds && retryAfterSeconds > 0 ? Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) : 0;
  return new Date(now.getTime() + Math.round(Math.max(jittered, wanted) * 1000));
}

/** The `webhook-id` of a message: stable across every try and redelivery. */
export function webhookMessageId(messageId: string): string {
  return `msg_${messageId.replace(/-/g, '')}`;
}

/** The id the seal of an endpoint's secrets is bound to. */
export function webhookSecretContext(endpointId: string, which: 'current' | 'previous' = 'current'): string {
  return `webhook-secret:${endpointId}:${which}`;
}

/** Whether an endpoint receives events of `type`. */
export function subscribes(endpoint: Pick<WebhookEndpoint, 'enabled' | 'eventTypes'>, type: SecurityEventType): boolean {
  return endpoint.enabled && (endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(type));
}

/**
 * The body of a delivery (Standard Webhooks: `type`, `timestamp`, `data`). `data` is the audit
 * entry without its housekeeping, so a receiver sees what the audit log holds and no secret.
 */
export function webhookPayload(entry: AuditEntry): string {
  const { expiresAt: _expiresAt, type, at, ...data } = entry;
  return JSON.stringify({ type, timestamp: at.toISOString(), data: { ...data, type, at: at.toISOString() } });
}

export const MAX_WEBHOOK_URL = 2048;

/**
 * Why `url` cannot be a webhook target, or null: an absolute http(s) URL without credentials or
 * fragment. Where it points (loopback, private, link-local) is checked at every delivery, after
 * DNS resolution, since a name may resolve elsewhere tomorrow.
 */
export function webhookUrlProblem(url: unknown, field = 'url'): string | null {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_WEBHOOK_URL) return `${field} must be a URL of at most ${MAX_WEBHOOK_URL} characters.`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${field} must be an absolute URL.`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${field} must use https (or http).`;
  if (parsed.username || parsed.password) return `${field} must not carry credentials.`;
  if (parsed.hash) return `${field} must not have a fragment.`;
  return null;
}
