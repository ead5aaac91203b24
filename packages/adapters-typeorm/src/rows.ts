// The rows the repositories read, one type per table, named after the columns the migrations
// create. The two databases hand values back differently, so columns whose JavaScript type
// depends on the database are `unknown` and go through row-values.ts:
// - timestamps: Date on PostgreSQL (timestamptz), ISO-8601 text on SQLite;
// - booleans: boolean on PostgreSQL, 0/1 on SQLite;
// - JSON: parsed on PostgreSQL (jsonb), text on SQLite;
// - bigint and counts: text on PostgreSQL (beyond 2^53 possible), numbers on SQLite.
// A statement may select fewer columns than its table has (rarely the tenant pair); joins
// combine these types, so a column keeps one type wherever it is read.

export type ProjectRow = {
  id: string;
  name: string;
  plan: string;
  allowed_origins: unknown;
  default_meta: unknown;
  redirect_urls: unknown;
  magic_link_url: string | null;
  password_reset_url: string | null;
  oidc_login_url: string | null;
  user_limit: number | null;
  access_token_ttl_seconds: number;
  refresh_token_ttl_seconds: number;
  refresh_reuse_grace_seconds: number;
  absolute_session_lifetime_seconds: number;
  reject_common_passwords: unknown;
  audit_retention_days: number;
  refresh_reuse_response: string;
  refresh_reuse_notice: unknown;
  recent_sign_in_seconds: number;
  email_verification: string;
  email_verification_url: string | null;
  email_templates: unknown;
  webauthn: unknown;
  rate_limits: unknown;
  created_at: unknown;
  updated_at: unknown;
};

export type ApiKeyRow = {
  id: string;
  project_id: string;
  environment: string;
  key_hash: string;
  suffix: string;
  created_at: unknown;
  revoked_at: unknown;
};

export type UserRow = {
  id: string;
  project_id: string;
  environment: string;
  email: string;
  password_hash: string | null;
  role: string;
  meta: unknown;
  email_verified: unknown;
  banned_at: unknown;
  created_at: unknown;
  last_login_at: unknown;
};

export type SessionRow = {
  id: string;
  project_id: string;
  environment: string;
  user_id: string;
  rotation_key: string;
  created_at: unknown;
  revoked_at: unknown;
  authenticated_at: unknown;
  client_address: string | null;
  user_agent: string | null;
};

export type RefreshTokenRow = {
  token_hash: string;
  project_id: string;
  environment: string;
  session_id: string;
  created_at: unknown;
  expires_at: unknown;
  used_at: unknown;
  successor_hash: string | null;
};

export type SigningKeyRow = {
  kid: string;
  project_id: string;
  environment: string;
  public_key_pem: string;
  encrypted_private_key: string;
  created_at: unknown;
  retired_at: unknown;
};

export type OneTimeTokenRow = {
  token_hash: string;
  project_id: string;
  environment: string;
  purpose: string;
  user_id: string | null;
  data: unknown;
  created_at: unknown;
  expires_at: unknown;
  consumed_at: unknown;
  failed_attempts: number | string;
};

export type MailOutboxRow = {
  id: string;
  project_id: string;
  environment: string;
  recipient: string;
  template: string;
  sealed_payload: string | null;
  status: string;
  attempts: number | string;
  next_attempt_at: unknown;
  lease_until: unknown;
  last_error: string | null;
  message_id: string | null;
  created_at: unknown;
  expires_at: unknown;
  sent_at: unknown;
};

export type TotpEnrollmentRow = {
  project_id: string;
  environment: string;
  user_id: string;
  sealed_secret: string;
  status: string;
  last_used_step: number | string | null;
  created_at: unknown;
  enabled_at: unknown;
};

export type PasskeyRow = {
  id: string;
  project_id: string;
  environment: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: number | string;
  transports: unknown;
  name: string;
  created_at: unknown;
  last_used_at: unknown;
};

export type OAuthProviderRow = {
  project_id: string;
  environment: string;
  provider: string;
  enabled: unknown;
  client_id: string;
  sealed_client_secret: string;
  scopes: unknown;
  redirect_url: string | null;
  issuer: string | null;
  authorization_url: string | null;
  token_url: string | null;
  user_info_url: string | null;
  created_at: unknown;
  updated_at: unknown;
};

export type OAuthIdentityRow = {
  project_id: string;
  environment: string;
  provider: string;
  subject: string;
  user_id: string;
  email: string | null;
  created_at: unknown;
};

export type OidcClientRow = {
  id: string;
  project_id: string;
  environment: string;
  name: string;
  redirect_uris: unknown;
  post_logout_redirect_uris: unknown;
  is_public: unknown;
  secret_hash: string | null;
  created_at: unknown;
};

export type OidcArtifactRow = {
  project_id: string;
  model: string;
  id: string;
  payload: unknown;
  grant_id: string | null;
  uid: string | null;
  user_code: string | null;
  expires_at: unknown;
  consumed_at: unknown;
};

export type AuditLogRow = {
  id: string;
  type: string;
  at: unknown;
  user_id: string | null;
  actor: unknown;
  client_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  data: unknown;
  expires_at: unknown;
};

export type WebhookEndpointRow = {
  id: string;
  url: string;
  event_types: unknown;
  enabled: unknown;
  disabled_reason: string | null;
  sealed_secret: string;
  sealed_previous_secret: string | null;
  previous_secret_expires_at: unknown;
  created_at: unknown;
  updated_at: unknown;
};

export type WebhookMessageRow = {
  id: string;
  project_id: string;
  environment: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: unknown;
  lease_until: unknown;
  last_status_code: number | null;
  last_error: string | null;
  created_at: unknown;
  delivered_at: unknown;
};

export type WebhookAttemptRow = {
  message_id: string;
  attempt: number;
  at: unknown;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
};
