import type { Environment } from './environment';

/** How a user proved who they are. */
export const SIGN_IN_METHODS = ['password', 'magic_link', 'oauth', 'passkey', 'totp', 'recovery_code', 'oidc'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** Why a sign-in was refused. Never the password or the code that was tried. */
export type SignInFailureReason = 'invalid_credentials' | 'user_banned' | 'invalid_totp_code' | 'invalid_passkey' | 'email_not_verified';

/** Why a session ended other than by its user signing out. */
export type SessionRevokedWhy = 'refresh_token_reused' | 'user_banned' | 'user_deleted' | 'password_reset' | 'password_changed' | 'session_ended';

/** What the service does when a used refresh token is presented again (a project setting). */
export const REFRESH_REUSE_RESPONSES = ['revoke_all_sessions', 'revoke_session'] as const;
export type RefreshReuseResponse = (typeof REFRESH_REUSE_RESPONSES)[number];

/**
 * Who caused an event: the user themself, a caller holding an API key (a sign-in that failed
 * before anyone was known), the operator through the admin token, the console or the CLI, or the service
 * itself (the janitor, a replay detected).
 */
export type Actor = { type: 'user'; userId: string } | { type: 'api_key'; apiKeyId: string } | { type: 'admin'; via: 'admin_token' | 'console' | 'cli'; id?: string } | { type: 'system' };

/** What the edge knows of the request behind an event; absent for work outside a request. */
export interface EventContext {
  clientAddress?: string;
  userAgent?: string;
  requestId?: string;
  /** The caller when the event does not name one itself (an admin, an API key). */
  actor?: Actor;
}

/** A settings change as the operator made it: the fields changed, before and after. */
export interface SettingsChange {
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

/**
 * The payload of each event type. Nothing here may hold a secret: no password, token, code,
 * key or client secret (a test scans every stored entry and webhook payload for them).
 */
export interface SecurityEventData {
  'user.created': { method: SignInMethod | 'admin' };
  'user.signed_in': { sessionId: string; method: SignInMethod };
  'user.sign_in_failed': { method: SignInMethod; reason: SignInFailureReason };
  'user.signed_out': { sessionId: string };
  'session.revoked': { sessionId?: string; why: SessionRevokedWhy; count?: number };
  'refresh_token.reused': { sessionId: string; response: RefreshReuseResponse; sessionsRevoked: number };
  'user.banned': Record<string, never>;
  'user.unbanned': Record<string, never>;
  'user.deleted': Record<string, never>;
  'user.updated': { fields: string[] };
  'password.changed': Record<string, never>;
  'password.reset': Record<string, never>;
  'email.verified': Record<string, never>;
  'email.changed': Record<string, never>;
  'totp.enabled': Record<string, never>;
  'totp.disabled': Record<string, never>;
  'passkey.added': { passkeyId: string };
  'passkey.removed': { passkeyId: string };
  'identity.linked': { provider: string };
  'api_key.created': { apiKeyId: string; environment: Environment };
  'api_key.revoked': { apiKeyId: string };
  'signing_key.rotated': { kid: string };
  'project.updated': SettingsChange;
  'oidc.grant': { clientId: string; approved: boolean; scopes: string[] };
  'webhook.test': Record<string, never>;
}

export type SecurityEventType = keyof SecurityEventData;

/** Every event type, in the order the documentation lists them. */
export const SECURITY_EVENT_TYPES = [
  'user.created',
  'user.signed_in',
  'user.sign_in_failed',
  'user.signed_out',
  'session.revoked',
  'refresh_token.reused',
  'user.banned',
  'user.unbanned',
  'user.deleted',
  'user.updated',
  'password.changed',
  'password.reset',
  'email.verified',
  'email.changed',
  'totp.enabled',
  'totp.disabled',
  'passkey.added',
  'passkey.removed',
  'identity.linked',
  'api_key.created',
  'api_key.revoked',
  'signing_key.rotated',
  'project.updated',
  'oidc.grant',
  'webhook.test',
] as const satisfies readonly SecurityEventType[];

export function isSecurityEventType(value: unknown): value is SecurityEventType {
  return typeof value === 'string' && (SECURITY_EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * A security-relevant move, as core emits it: a discriminated union on `type`. `userId` is the
 * user it concerns, if any; `actor` is set when core knows who acted (the user themself),
 * otherwise the edge's context names the caller. `retentionDays` is set by a change of the
 * project's audit retention: its own entry is kept for the retention it set, which the recorder
 * cannot know yet (it keeps a project's retention until the change's notice, after the commit).
 */
export type SecurityEvent = {
  [T in SecurityEventType]: { type: T; userId?: string; actor?: Actor; data: SecurityEventData[T]; context?: EventContext; retentionDays?: number };
}[SecurityEventType];

/** One event as the audit log keeps it. */
export interface AuditEntry {
  id: string;
  type: SecurityEventType;
  at: Date;
  userId: string | null;
  actor: Actor;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  data: Record<string, unknown>;
  /** When the janitor may delete it (the project's audit retention at the time of writing). */
  expiresAt: Date;
}

/** The actor of an event: the one it names, else the caller its context names, else the service. */
export function actorOf(event: SecurityEvent): Actor {
  return event.actor ?? event.context?.actor ?? { type: 'system' };
}

/**
 * The fields `fields` of two versions of a settings record, where they differ. Values are
 * copied as JSON, so dates become ISO text. Records passed here hold no secrets (project settings).
 */
export function settingsChange(before: object, after: object, fields: string[]): SettingsChange {
  const change: SettingsChange = { before: {}, after: {} };
  const [old, now] = [before as Record<string, unknown>, after as Record<string, unknown>];
  for (const field of fields) {
    if (JSON.stringify(old[field]) === JSON.stringify(now[field])) continue;
    change.before[field] = plainCopy(old[field]);
    change.after[field] = plainCopy(now[field]);
  }
  return change;
}

function plainCopy(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/** Audit retention bounds, in days (a project setting). */
export const AUDIT_RETENTION_DAYS = { default: 90, min: 1, max: 3650 } as const;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The audit entry of `event`, kept for the project's retention from `at`. */
export function auditEntryOf(event: SecurityEvent, entry: { id: string; at: Date; retentionDays: number }): AuditEntry {
  const context = event.context ?? {};
  return {
    id: entry.id,
    type: event.type,
    at: entry.at,
    userId: event.userId ?? null,
    actor: actorOf(event),
    clientAddress: context.clientAddress ?? null,
    userAgent: context.userAgent ?? null,
    requestId: context.requestId ?? null,
    data: { ...event.data },
    expiresAt: new Date(entry.at.getTime() + entry.retentionDays * DAY_MS),
  };
}
