import { resolveBaseUrl } from './base-url';
import { fetchRequester, type HttpRequester } from './http-requester';
import { DEFAULT_RETRY, type RetryOptions } from './retry';
import { send, type CallOptions, type CallSpec, type TransportOptions } from './transport';
import type {
  AuthResult,
  Branding,
  ChangePasswordRequest,
  DeviceSession,
  EmailVerifiedUser,
  EmailVerifyRequest,
  LoginRequest,
  MagicLinkRequest,
  MagicLinkVerifyUser,
  OAuthExchangeResult,
  OAuthInitiateData,
  OAuthInitiateRequest,
  OidcGrantRequest,
  OidcGrantResponseData,
  Passkey,
  PasskeyLoginOptions,
  PasswordUpdateRequest,
  Reauthentication,
  SignInResult,
  SignupRequest,
  Success,
  TokenBundle,
  TotpConfirmResult,
  TotpStartResult,
  UserLogin,
  UserMe,
  UserSignup,
  WebAuthnOptionsJSON,
} from './types';

export interface SvcClientOptions {
  /** Project API key (`svc_live_...` or `svc_sbx_...`). Keep it on the server. */
  apiKey: string;
  /** API origin; falls back to `SVC_API_URL`, `SVC_BASE_URL`, then `http://127.0.0.1:3000`. */
  baseUrl?: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /**
   * How requests are sent, instead of fetch: on Node, `undiciRequester()` from `@svc/sdk/node`
   * does the same at a third of fetch's CPU per call. Give `fetch` or `request`, not both.
   */
  request?: HttpRequester;
  /** Backoff for calls that are safe to repeat; `{ retries: 0 }` turns it off. */
  retry?: Partial<RetryOptions>;
  /** Per-attempt timeout in ms. Default {@link DEFAULT_TIMEOUT_MS}. */
  timeoutMs?: number;
}

/** How long one attempt of a call may take, unless `timeoutMs` says otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Options of calls made for a signed-in user: the access token is required. */
export type UserCallOptions = CallOptions & { accessToken: string };

/** The typed client returned by {@link createSvcClient}. */
export type SvcClient = ReturnType<typeof createSvcClient>;

const enc = encodeURIComponent;

/**
 * A typed client of the svc public API: one method per endpoint of the OpenAPI document's public API.
 * Methods resolve to the `data` of the envelope and reject with `SvcError`. Every method takes
 * {@link CallOptions} last; pass the end user's `clientIp` from your request handler.
 *
 * Retries (429 and network errors, exponential backoff with full jitter, `Retry-After` honoured)
 * apply only to calls safe to repeat: GETs, logout, branding, OAuth initiate, magic-link, reset
 * and verification-mail requests, passkey and session removal. Sign-in, sign-up, refresh, exchanges, verifications and
 * grants consume attempts or single-use tokens and are sent once.
 */
export function createSvcClient(options: SvcClientOptions) {
  if (!options.apiKey) throw new TypeError('createSvcClient: apiKey is required.');
  if (options.fetch && options.request) throw new TypeError('createSvcClient: give fetch or request, not both.');
  const transport: TransportOptions = {
    apiKey: options.apiKey,
    baseUrl: resolveBaseUrl(options.baseUrl),
    request: options.request ?? fetchRequester(options.fetch ?? globalThis.fetch),
    retry: { ...DEFAULT_RETRY, ...options.retry },
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  const post = <T>(path: string, body: unknown, call: CallOptions | undefined, retrySafe = false) => send<T>(transport, { method: 'POST', path, body, call, retrySafe });
  const get = <T>(path: string, call: CallOptions | undefined, extra: Partial<CallSpec> = {}) => send<T>(transport, { method: 'GET', path, call, retrySafe: true, ...extra });

  return {
    /** The resolved API origin. */
    baseUrl: transport.baseUrl,
    /** 1. Creates a user and signs it in (201). */
    signup: (body: SignupRequest, call?: CallOptions) => post<AuthResult<UserSignup>>('/api/auth/signup', body, call),
    /** 2. Password sign-in; a user with TOTP on gets a {@link TwoFactorChallenge} instead of tokens. */
    login: (body: LoginRequest, call?: CallOptions) => post<SignInResult<UserLogin>>('/api/auth/login', body, call),
    /** 3. Revokes the session of a refresh token; succeeds for unknown tokens too. */
    logout: (body: { refreshToken: string }, call?: CallOptions) => post<Success>('/api/auth/logout', body, call, true),
    /** 4. Rotates a refresh token; the presented one is used up (presenting it again revokes every session). */
    refresh: (body: { refreshToken: string }, call?: CallOptions) => post<TokenBundle>('/api/auth/refresh', body, call),
    /** 5. The live user of an access token. */
    me: (call: UserCallOptions) => get<{ user: UserMe }>('/api/auth/me', call),
    /** 6. Sends a magic link; always succeeds (no account enumeration). */
    magicLink: (body: MagicLinkRequest, call?: CallOptions) => post<Success>('/api/auth/magic-link', body, call, true),
    /** 7. Redeems a magic-link token (no API key; single use). */
    verifyMagicLink: (query: { token: string; project: string }, call?: CallOptions) =>
      get<SignInResult<MagicLinkVerifyUser>>('/api/auth/magic-link/verify', call, { query, withKey: false, retrySafe: false }),
    /** 8. Sends a password-reset mail; always succeeds. */
    passwordReset: (body: { email: string }, call?: CallOptions) => post<Success>('/api/auth/password/reset', body, call, true),
    /** 9. Sets a new password with a reset token; every session of the user is revoked. */
    passwordUpdate: (body: PasswordUpdateRequest, call?: CallOptions) => post<Success>('/api/auth/password/update', body, call),
    /** 10. Starts social sign-in: send the browser to `authorizationUrl`. */
    oauthInitiate: (provider: string, body: OAuthInitiateRequest = {}, call?: CallOptions) => post<OAuthInitiateData>(`/api/auth/oauth/${enc(provider)}`, body, call, true),
    /** 12. Exchanges the single-use code from the OAuth redirect for a session. */
    oauthExchange: (body: { code: string }, call?: CallOptions) => post<OAuthExchangeResult>('/api/auth/oauth/token', body, call),
    /** 13. Answers a hosted-OIDC consent (Pro plan): open `redirectUrl` in the user's browser. */
    oidcGrant: (body: OidcGrantRequest, call?: CallOptions) => post<OidcGrantResponseData>('/api/auth/oidc/grant', body, call),
    /** 14. Whether the "powered by" badge must be shown (FREE plan). */
    branding: (call?: CallOptions) => get<Branding>('/api/auth/sdk/branding', call),

    /** Begins TOTP enrolment for the signed-in user. */
    totpStart: (call: UserCallOptions, proof: Reauthentication = {}) => post<TotpStartResult>('/api/auth/2fa/totp/start', proof, call),
    /** Turns TOTP on with a first code; answers ten single-use recovery codes. */
    totpConfirm: (body: { code: string }, call: UserCallOptions) => post<TotpConfirmResult>('/api/auth/2fa/totp/confirm', body, call),
    /** Turns TOTP off (needs a current code). */
    totpDisable: (body: { code: string }, call: UserCallOptions) => post<Success>('/api/auth/2fa/totp/disable', body, call),
    /** Completes a sign-in that answered a second-factor challenge (`code` may be a recovery code). */
    totpVerify: (body: { twoFactorToken: string; code: string }, call?: CallOptions) => post<AuthResult<UserLogin>>('/api/auth/2fa/totp/verify', body, call),

    /** WebAuthn creation options for a new passkey of the signed-in user. */
    passkeyRegisterOptions: (call: UserCallOptions, proof: Reauthentication = {}) => post<WebAuthnOptionsJSON>('/api/auth/passkeys/register/options', proof, call),
    /** Stores the passkey the browser created. */
    passkeyRegisterVerify: (body: { response: unknown; name?: string }, call: UserCallOptions) => post<{ passkey: Passkey }>('/api/auth/passkeys/register/verify', body, call),
    /** The signed-in user's passkeys. */
    passkeyList: (call: UserCallOptions) => get<{ passkeys: Passkey[] }>('/api/auth/passkeys', call),
    /** Removes one of the signed-in user's passkeys. */
    passkeyRevoke: (id: string, call: UserCallOptions, proof: Reauthentication = {}) =>
      send<Success>(transport, { method: 'DELETE', path: `/api/auth/passkeys/${enc(id)}`, body: proof, call, retrySafe: true }),
    /** The signed-in user's sessions that can still be used, most recently used first. */
    sessionList: (call: UserCallOptions) => get<{ sessions: DeviceSession[] }>('/api/auth/sessions', call),
    /** Signs one of the user's sessions out (404 for another user's). */
    sessionRevoke: (id: string, call: UserCallOptions) => send<Success>(transport, { method: 'DELETE', path: `/api/auth/sessions/${enc(id)}`, call, retrySafe: true }),
    /** Signs every other session of the user out; this one stays. */
    sessionRevokeOthers: (call: UserCallOptions) => post<{ revoked: number }>('/api/auth/sessions/revoke-others', {}, call, true),
    /** Signs the user out everywhere, this session too. */
    logoutAll: (call: UserCallOptions) => post<{ revoked: number }>('/api/auth/logout-all', {}, call, true),
    /** Changes the password (the current one proves it); the user's other sessions end. */
    passwordChange: (body: ChangePasswordRequest, call: UserCallOptions) => post<Success>('/api/auth/password/change', body, call),
    /** Deletes the signed-in user's account and everything of it (recent sign-in, or a proof). */
    accountDelete: (call: UserCallOptions, proof: Reauthentication = {}) => send<Success>(transport, { method: 'DELETE', path: '/api/auth/account', body: proof, call, retrySafe: false }),
    /** Redeems the 6-digit code of the latest magic-link mail instead of its link (single use). */
    magicLinkVerifyCode: (body: { email: string; code: string }, call?: CallOptions) => post<SignInResult<MagicLinkVerifyUser>>('/api/auth/magic-link/verify-code', body, call),
    /** Confirms a sign-up's address with the link's token or the mail's code. */
    emailVerify: (body: EmailVerifyRequest, call?: CallOptions) => post<{ user: EmailVerifiedUser }>('/api/auth/email/verify', body, call),
    /** Mails the new address a link and a code, the old one a notice; nothing changes until confirmed. */
    emailChange: (body: { newEmail: string } & Reauthentication, call: UserCallOptions) => post<Success>('/api/auth/email/change', body, call),
    /** Confirms the new address: `{ token }` from the link (API key only), or `{ code }` with the user's access token. */
    emailChangeConfirm: (body: { token: string } | { code: string }, call?: CallOptions) => post<{ user: EmailVerifiedUser }>('/api/auth/email/change/confirm', body, call),
    /** Mails the verification link and code again; always succeeds. */
    emailVerifyResend: (body: { email: string }, call?: CallOptions) => post<Success>('/api/auth/email/verify/resend', body, call, true),
    /** WebAuthn request options and the challenge id for a passkey sign-in. */
    passkeyLoginOptions: (body: { email: string }, call?: CallOptions) => post<PasskeyLoginOptions>('/api/auth/passkeys/login/options', body, call),
    /** Verifies the browser's assertion and signs the user in (passkeys skip the TOTP step). */
    passkeyLoginVerify: (body: { challengeId: string; email: string; response: unknown }, call?: CallOptions) => post<AuthResult<UserLogin>>('/api/auth/passkeys/login/verify', body, call),
  };
}
