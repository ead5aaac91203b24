// The API's shapes, as the OpenAPI document (apps/api/openapi/openapi.yaml) gives them, second
// factors and passkeys included. Dates are ISO 8601 strings, as on the wire.

/** Free-form JSON object carried by every user. */
export type Meta = Record<string, unknown>;

interface UserBase {
  id: string;
  email: string;
  role: string;
  meta: Meta;
}

/** UserSignup (also MagicLinkVerifyUser and OAuthExchangeUser, which have the same fields). */
export interface UserSignup extends UserBase {
  createdAt: string;
}
export type MagicLinkVerifyUser = UserSignup;
export type OAuthExchangeUser = UserSignup;

/** UserLogin. */
export interface UserLogin extends UserBase {
  lastLoginAt: string | null;
}

/** UserMe: the live user record. */
export interface UserMe extends UserBase {
  emailVerified: boolean;
  createdAt: string;
  lastLoginAt: string | null;
}

/** Access token (RS256 JWT), single-use refresh token, access lifetime in seconds. */
export interface TokenBundle {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** A finished sign-in: the user and a new session's tokens. */
export type AuthResult<U> = { user: U; twoFactorRequired?: false } & TokenBundle;

/** A user with TOTP on gets this instead of tokens; redeem it with `totpVerify`. */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
  twoFactorToken: string;
  methods: string[];
}

/** What every password-equivalent sign-in answers (login, magic link, OAuth exchange). */
export type SignInResult<U> = AuthResult<U> | TwoFactorChallenge;

/** True when a sign-in answered the second-factor challenge instead of tokens. */
export function isTwoFactorChallenge(result: object): result is TwoFactorChallenge {
  return (result as { twoFactorRequired?: unknown }).twoFactorRequired === true;
}

export interface SignupRequest {
  email: string;
  password: string;
  meta?: Meta;
}
export interface LoginRequest {
  email: string;
  password: string;
}
export interface MagicLinkRequest {
  email: string;
  createIfNotExists?: boolean;
}
export interface PasswordUpdateRequest {
  token: string;
  newPassword: string;
}
export interface OAuthInitiateRequest {
  redirectUrl?: string | null;
  /** The caller's opaque value, echoed back on the redirect (docs/decisions.md#contract-clarifications). */
  state?: string;
}
export interface OidcGrantRequest {
  requestToken: string;
  approved: boolean;
  userId?: string;
  scopes?: string[];
}

export interface Success {
  success: true;
}
export interface OAuthInitiateData {
  provider: string;
  authorizationUrl: string;
}
export type OAuthExchangeResult = (AuthResult<OAuthExchangeUser> & { provider: string }) | TwoFactorChallenge;
export interface OidcGrantResponseData {
  redirectUrl: string;
}
export interface Branding {
  poweredByService: boolean;
}

export interface TotpStartResult {
  secret: string;
  otpauthUrl: string;
}
export interface TotpConfirmResult {
  recoveryCodes: string[];
}

/** WebAuthn options as JSON (PublicKeyCredentialCreation/RequestOptionsJSON); passed through untouched. */
export type WebAuthnOptionsJSON = Record<string, unknown>;

/** A registered passkey; fields beyond id are the API's (they may grow). */
export interface Passkey {
  id: string;
  name?: string | null;
  createdAt?: string;
  lastUsedAt?: string | null;
  [field: string]: unknown;
}
export interface PasskeyLoginOptions {
  challengeId: string;
  options: WebAuthnOptionsJSON;
}

/**
 * The proof a sensitive change may carry (adding or removing a passkey, turning TOTP on,
 * changing the password, deleting the account) when the session's sign-in is older than the
 * project's `recentSignInSeconds`; without it such calls reject with `reauthentication_required`.
 */
export interface Reauthentication {
  currentPassword?: string;
  /** A current TOTP code (TOTP on; not a recovery code). */
  totpCode?: string;
}
/** One of the user's sessions (`GET /api/auth/sessions`). */
export interface DeviceSession {
  id: string;
  createdAt: string;
  lastUsedAt: string;
  /** IPv4, or the /64 of IPv6, of the sign-in. */
  address: string | null;
  userAgent: string | null;
  /** The session of the access token that asked. */
  current: boolean;
}
export interface ChangePasswordRequest extends Reauthentication {
  newPassword: string;
}
/** `{ token }` from the verification link, or the address with the mail's 6-digit code. */
export type EmailVerifyRequest = { token: string } | { email: string; code: string };
export interface EmailVerifiedUser {
  id: string;
  email: string;
  emailVerified: true;
}
