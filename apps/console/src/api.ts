import type { ActivityDay } from '@svc/core/activity-stats';
import type { Actor, SecurityEventType } from '@svc/core/security-event';

/**
 * The console's only way to the server: same-origin fetches of the admin API with the session
 * cookie (sent by the browser, never readable here) and the CSRF token, kept in memory only.
 */
let csrfToken: string | null = null;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Environment = 'production' | 'sandbox';

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (csrfToken) headers['X-Svc-Csrf'] = csrfToken;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/console/api/session')) onSignedOut?.();
    throw new ApiError(res.status, json.error ?? 'error', json.message ?? `The server answered ${res.status}.`);
  }
  return json.data as T;
}

let onSignedOut: (() => void) | undefined;
/** Called when the server no longer accepts the session (expired, or the admin token changed). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

interface SessionInfo {
  csrfToken: string;
  expiresAt: string;
}

export async function signIn(token: string): Promise<void> {
  csrfToken = (await call<SessionInfo>('POST', '/console/api/session', { token })).csrfToken;
}

/** Picks up a session the browser still has (a reload); false when there is none. */
export async function resume(): Promise<boolean> {
  try {
    csrfToken = (await call<SessionInfo>('GET', '/console/api/session')).csrfToken;
    return true;
  } catch {
    return false;
  }
}

export async function signOut(): Promise<void> {
  try {
    await call('DELETE', '/console/api/session');
  } finally {
    csrfToken = null;
  }
}

const q = (params: Record<string, string | number | undefined>) => {
  const entries = Object.entries(params).filter(([, v]) => v !== undefined && v !== '') as [string, string][];
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}` : '';
};

export interface Project {
  id: string;
  name: string;
  plan: 'FREE' | 'SOLO' | 'PRO';
  allowedOrigins: string[];
  redirectUrls: string[];
  magicLinkUrl: string | null;
  passwordResetUrl: string | null;
  defaultMeta: Record<string, unknown>;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  refreshReuseGraceSeconds: number;
  createdAt: string;
  [key: string]: unknown;
}

export interface AdminUser {
  id: string;
  email: string;
  role: string;
  meta: Record<string, unknown>;
  emailVerified: boolean;
  banned: boolean;
  createdAt: string;
  lastLoginAt: string | null;
}

export interface UserDetail extends AdminUser {
  hasPassword: boolean;
  totpEnabled: boolean;
  passkeys: { id: string; name: string; createdAt: string; lastUsedAt: string | null }[];
  identities: { provider: string; subject: string; email: string | null; createdAt: string }[];
  sessions: { id: string; createdAt: string; lastUsedAt: string; revokedAt: string | null; active: boolean; address: string | null; userAgent: string | null }[];
}

export interface ApiKey {
  id: string;
  environment: Environment;
  suffix: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface Mail {
  id: string;
  to: string;
  template: string;
  status: string;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  subject?: string;
  links?: string[];
}

export interface OAuthProviderView {
  provider: string;
  environment: Environment;
  enabled: boolean;
  clientId: string;
  scopes: string[];
  redirectUrl: string | null;
  updatedAt: string;
}

export interface OidcClientView {
  clientId: string;
  environment: Environment;
  name: string;
  redirectUris: string[];
  public: boolean;
  createdAt: string;
}

export interface AuditEntry {
  id: string;
  type: SecurityEventType;
  at: string;
  userId: string | null;
  actor: Actor;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  data: Record<string, unknown>;
}

export interface AuditQuery {
  type?: SecurityEventType;
  userId?: string;
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Empty = every event type. */
  eventTypes: string[];
  enabled: boolean;
  disabledReason: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookMessage {
  id: string;
  webhookId: string;
  endpointId: string;
  eventType: string;
  status: 'pending' | 'sending' | 'delivered' | 'dead';
  attempts: number;
  nextAttemptAt: string;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  payload: unknown;
}

export interface WebhookAttempt {
  attempt: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** One UTC day of an environment's activity (GET .../stats): core's shape, all strings and numbers on the wire too. */
export type { ActivityDay } from '@svc/core/activity-stats';

export interface ActivityStats {
  days: ActivityDay[];
  totals: Omit<ActivityDay, 'day'>;
}

const projectPath = (id: string) => `/admin/projects/${encodeURIComponent(id)}`;
const usersPath = (id: string, env: Environment) => `${projectPath(id)}/environments/${env}/users`;
const hooksPath = (id: string, env: Environment) => `${projectPath(id)}/environments/${env}/webhooks`;

export const api = {
  listProjects: (query: { q?: string; cursor?: string }) => call<{ projects: Project[]; nextCursor: string | null }>('GET', `/admin/projects${q({ ...query, limit: 20 })}`),
  createProject: (body: { name: string; plan: string }) => call<{ project: Project; apiKeys: Record<Environment, string> }>('POST', '/admin/projects', body),
  getProject: (id: string) => call<{ project: Project }>('GET', projectPath(id)),
  updateProject: (id: string, body: Record<string, unknown>) => call<{ project: Project }>('PATCH', projectPath(id), body),
  deleteProject: (id: string) => call('DELETE', projectPath(id)),
  listApiKeys: (id: string) => call<{ apiKeys: ApiKey[] }>('GET', `${projectPath(id)}/api-keys`),
  createApiKey: (id: string, environment: Environment) => call<{ id: string; key: string; environment: Environment }>('POST', `${projectPath(id)}/api-keys`, { environment }),
  revokeApiKey: (id: string, keyId: string) => call('DELETE', `${projectPath(id)}/api-keys/${keyId}`),
  publicKey: (id: string, env: Environment) => call<{ kid: string; publicKey: string }>('GET', `${projectPath(id)}/environments/${env}/public-key`),
  rotateSigningKey: (id: string, env: Environment) => call<{ kid: string }>('POST', `${projectPath(id)}/environments/${env}/signing-keys/rotate`),
  activityStats: (id: string, env: Environment, days: number) => call<ActivityStats>('GET', `${projectPath(id)}/environments/${env}/stats${q({ days })}`),
  listUsers: (id: string, env: Environment, query: { q?: string; cursor?: string; limit?: number }) =>
    call<{ users: AdminUser[]; nextCursor: string | null; total: number }>('GET', `${usersPath(id, env)}${q(query)}`),
  createUser: (id: string, env: Environment, body: Record<string, unknown>) => call<{ user: AdminUser }>('POST', usersPath(id, env), body),
  getUser: (id: string, env: Environment, userId: string) => call<{ user: UserDetail }>('GET', `${usersPath(id, env)}/${userId}`),
  updateUser: (id: string, env: Environment, userId: string, body: Record<string, unknown>) => call<{ user: AdminUser }>('PATCH', `${usersPath(id, env)}/${userId}`, body),
  banUser: (id: string, env: Environment, userId: string) => call('POST', `${usersPath(id, env)}/${userId}/ban`),
  unbanUser: (id: string, env: Environment, userId: string) => call('POST', `${usersPath(id, env)}/${userId}/unban`),
  deleteUser: (id: string, env: Environment, userId: string) => call('DELETE', `${usersPath(id, env)}/${userId}`),
  revokeSession: (id: string, env: Environment, userId: string, sessionId: string) => call('DELETE', `${usersPath(id, env)}/${userId}/sessions/${sessionId}`),
  revokeAllSessions: (id: string, env: Environment, userId: string) => call<{ revoked: number }>('POST', `${usersPath(id, env)}/${userId}/sessions/revoke-all`),
  listProviders: (id: string, environment: Environment) => call<{ providers: OAuthProviderView[] }>('GET', `${projectPath(id)}/oauth-providers${q({ environment })}`),
  saveProvider: (id: string, provider: string, body: Record<string, unknown>) =>
    call<{ provider: OAuthProviderView }>('PUT', `${projectPath(id)}/oauth-providers/${encodeURIComponent(provider)}`, body),
  removeProvider: (id: string, provider: string, environment: Environment) => call('DELETE', `${projectPath(id)}/oauth-providers/${encodeURIComponent(provider)}${q({ environment })}`),
  listOidcClients: (id: string, environment: Environment) => call<{ clients: OidcClientView[] }>('GET', `${projectPath(id)}/oidc-clients${q({ environment })}`),
  createOidcClient: (id: string, body: Record<string, unknown>) => call<{ clientId: string; clientSecret?: string }>('POST', `${projectPath(id)}/oidc-clients`, body),
  deleteOidcClient: (id: string, clientId: string) => call('DELETE', `${projectPath(id)}/oidc-clients/${encodeURIComponent(clientId)}`),
  sandboxMail: (id: string, email: string) => call<{ mails: Mail[] }>('GET', `${projectPath(id)}/environments/sandbox/outbox${q({ email, limit: 50 })}`),
  deadMail: (id: string) => call<{ mails: Mail[] }>('GET', `${projectPath(id)}/outbox/dead`),
  auditLog: (id: string, env: Environment, query: AuditQuery) =>
    call<{ entries: AuditEntry[]; nextCursor: string | null }>('GET', `${projectPath(id)}/environments/${env}/audit-log${q({ ...query })}`),
  listWebhooks: (id: string, env: Environment) => call<{ endpoints: WebhookEndpoint[] }>('GET', hooksPath(id, env)),
  createWebhook: (id: string, env: Environment, body: { url: string; eventTypes: string[] }) => call<{ endpoint: WebhookEndpoint; secret: string }>('POST', hooksPath(id, env), body),
  getWebhook: (id: string, env: Environment, hookId: string) => call<{ endpoint: WebhookEndpoint }>('GET', `${hooksPath(id, env)}/${hookId}`),
  updateWebhook: (id: string, env: Environment, hookId: string, body: { eventTypes?: string[]; enabled?: boolean }) =>
    call<{ endpoint: WebhookEndpoint }>('PATCH', `${hooksPath(id, env)}/${hookId}`, body),
  deleteWebhook: (id: string, env: Environment, hookId: string) => call('DELETE', `${hooksPath(id, env)}/${hookId}`),
  rotateWebhookSecret: (id: string, env: Environment, hookId: string) => call<{ secret: string }>('POST', `${hooksPath(id, env)}/${hookId}/rotate-secret`),
  testWebhook: (id: string, env: Environment, hookId: string) => call<{ message: WebhookMessage }>('POST', `${hooksPath(id, env)}/${hookId}/test`),
  webhookMessages: (id: string, env: Environment, hookId: string) => call<{ messages: WebhookMessage[] }>('GET', `${hooksPath(id, env)}/${hookId}/messages${q({ limit: 50 })}`),
  webhookMessage: (id: string, env: Environment, messageId: string) => call<{ message: WebhookMessage; attempts: WebhookAttempt[] }>('GET', `${hooksPath(id, env)}/messages/${messageId}`),
  redeliverMessage: (id: string, env: Environment, messageId: string) => call('POST', `${hooksPath(id, env)}/messages/${messageId}/redeliver`),
  redeliverRange: (id: string, env: Environment, hookId: string, range: { from: string; to: string }) => call<{ requeued: number }>('POST', `${hooksPath(id, env)}/${hookId}/redeliver`, range),
};
