import type { WebAuthnSettings } from './relying-party';
import type { EmailTemplates } from './email-templates';
import type { RateLimitOverrides } from './rate-limit-overrides';
import type { RefreshReuseResponse } from './security-event';

export const PLANS = ['FREE', 'SOLO', 'PRO'] as const;
export type Plan = (typeof PLANS)[number];

export type PlanUserLimits = Record<Plan, number | null>;

export const DEFAULT_PLAN_USER_LIMITS: PlanUserLimits = { FREE: 1000, SOLO: 10000, PRO: null };

export interface TokenLifetimes {
  /** Access-token lifetime in seconds (reported as expiresIn). */
  accessTokenTtlSeconds: number;
  /** Lifetime of each refresh token in seconds; every rotation starts a new one. */
  refreshTokenTtlSeconds: number;
  /** 0 = strict reuse detection; > 0 lets a just-rotated token get the same successor again. */
  refreshReuseGraceSeconds: number;
  /**
   * How long a session may last from its sign-in, however often it is refreshed; then refresh is
   * refused and the user signs in again (docs/security.md, "Session lifetime").
   */
  absoluteSessionLifetimeSeconds: number;
}

const DAY_SECONDS = 24 * 60 * 60;

/** The security settings of a new project, when its creator sets none. */
export const DEFAULT_SECURITY_SETTINGS: Pick<Project, 'auditRetentionDays' | 'refreshReuseResponse' | 'refreshReuseNotice'> = {
  auditRetentionDays: 90,
  refreshReuseResponse: 'revoke_all_sessions',
  refreshReuseNotice: false,
};

export const DEFAULT_TOKEN_LIFETIMES: TokenLifetimes = {
  accessTokenTtlSeconds: 900,
  refreshTokenTtlSeconds: 60 * DAY_SECONDS,
  refreshReuseGraceSeconds: 0,
  // The contract leaves the API's refresh lifetime open. 90 days: a user active at least every
  // 60 days (the refresh lifetime) signs in again at most once a quarter, while a refresh token
  // someone else keeps alive stops working within three months. Reasons in docs/security.md.
  absoluteSessionLifetimeSeconds: 90 * DAY_SECONDS,
};

/** The default of `recentSignInSeconds`: five minutes (docs/security.md, "Recent sign-in"). */
export const DEFAULT_RECENT_SIGN_IN_SECONDS = 300;

export interface Project extends TokenLifetimes {
  id: string;
  name: string;
  plan: Plan;
  allowedOrigins: string[];
  defaultMeta: Record<string, unknown>;
  redirectUrls: string[];
  magicLinkUrl: string | null;
  passwordResetUrl: string | null;
  oidcLoginUrl: string | null;
  /** Overrides the plan's user limit for production users; null = use the plan's. */
  userLimit: number | null;
  /** Passkey relying party; null = derived from allowedOrigins (see relyingPartyOf). */
  webauthn: WebAuthnSettings | null;
  /** Overrides of the magic-link and password-reset mails; null = the defaults. */
  emailTemplates: EmailTemplates | null;
  /** Refuse the most common passwords wherever a password is set (off by default; see isCommonPassword). */
  rejectCommonPasswords: boolean;
  /** The project's own rate limits per environment, over the service's; null = the service's. */
  rateLimits: RateLimitOverrides | null;
  /** Days an audit-log entry is kept from when it was written; then the janitor deletes it. */
  auditRetentionDays: number;
  /**
   * What a replayed refresh token ends: every session of its user (the contract's behaviour,
   * the default) or only the session it belongs to. The event is emitted either way.
   */
  refreshReuseResponse: RefreshReuseResponse;
  /** Whether the user is also mailed (the `refresh_token_reused` notice) when a replay ended sessions. */
  refreshReuseNotice: boolean;
  /**
   * How long after a sign-in its session may make sensitive changes (passkeys, TOTP, password,
   * e-mail, deleting the account) without proving a factor again (see isRecentSignIn).
   */
  recentSignInSeconds: number;
  /** Whether password sign-ups confirm their address (see mustVerifyEmail); `off` by default. */
  emailVerification: EmailVerificationMode;
  /** The page of the app that verification links open (token and project in the query). */
  emailVerificationUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Fields an operator may set on create or update. */
export type ProjectSettings = Partial<
  Pick<
    Project,
    | 'name'
    | 'plan'
    | 'allowedOrigins'
    | 'defaultMeta'
    | 'redirectUrls'
    | 'magicLinkUrl'
    | 'passwordResetUrl'
    | 'oidcLoginUrl'
    | 'userLimit'
    | 'webauthn'
    | 'emailTemplates'
    | 'accessTokenTtlSeconds'
    | 'refreshTokenTtlSeconds'
    | 'refreshReuseGraceSeconds'
    | 'absoluteSessionLifetimeSeconds'
    | 'rejectCommonPasswords'
    | 'rateLimits'
    | 'auditRetentionDays'
    | 'refreshReuseResponse'
    | 'refreshReuseNotice'
    | 'recentSignInSeconds'
    | 'emailVerification'
    | 'emailVerificationUrl'
  >
>;

/**
 * E-mail verification of password sign-ups: `off` (the contract's behaviour, no mail), `optional`
 * (a mail with a link and a code; signing in works meanwhile), `required` (the same mail, and
 * no sign-in until the address is confirmed: 403 email_not_verified).
 */
export const EMAIL_VERIFICATION_MODES = ['off', 'optional', 'required'] as const;
export type EmailVerificationMode = (typeof EMAIL_VERIFICATION_MODES)[number];

/** True when `project` keeps `user` from signing in until the address is confirmed. */
export function mustVerifyEmail(project: Pick<Project, 'emailVerification'>, user: { emailVerified: boolean }): boolean {
  return project.emailVerification === 'required' && !user.emailVerified;
}

/** True when a password sign-up to `project` is mailed a verification link and code. */
export function sendsEmailVerification(project: Pick<Project, 'emailVerification'>): boolean {
  return project.emailVerification !== 'off';
}

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

/** The production user limit in force for a project: its own override, else its plan's. */
export function effectiveUserLimit(project: Project, limits: PlanUserLimits): number | null {
  return project.userLimit ?? limits[project.plan];
}

/** The hosted OIDC provider is a Pro feature: its issuer answers, and `POST /api/auth/oidc/grant` grants, for Pro projects only. */
export function hasOidcProvider(plan: Plan): boolean {
  return plan === 'PRO';
}

/** Branding rule of `GET /api/auth/sdk/branding`: free projects show "powered by". */
export function poweredByService(plan: Plan): boolean {
  return plan === 'FREE';
}
