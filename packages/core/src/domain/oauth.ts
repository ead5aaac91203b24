import type { Environment, TenantScope } from './environment';

/** The identity providers a project can enable (docs/decisions.md#social-sign-in); `oidc` is any OpenID provider by issuer. */
export const OAUTH_PROVIDERS = ['google', 'github', 'discord', 'oidc'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export function isOAuthProvider(value: unknown): value is OAuthProvider {
  return typeof value === 'string' && (OAUTH_PROVIDERS as readonly string[]).includes(value);
}

/** The providers that speak OpenID Connect: they get a `nonce` and their ID token is validated. */
export function isOpenIdProvider(provider: OAuthProvider): boolean {
  return provider === 'google' || provider === 'oidc';
}

/**
 * Scopes asked for when the operator names none: the least that yields a stable id and a verified
 * e-mail address (GitHub's `user:email` is what lets us read `/user/emails`).
 */
export const DEFAULT_OAUTH_SCOPES: Readonly<Record<OAuthProvider, readonly string[]>> = {
  google: ['openid', 'email', 'profile'],
  github: ['read:user', 'user:email'],
  discord: ['identify', 'email'],
  oidc: ['openid', 'email', 'profile'],
};

/**
 * One provider's settings in one project environment. Every endpoint URL may be overridden (null =
 * the provider's default, or discovery from `issuer`); the client secret is stored sealed only.
 */
export interface OAuthProviderConfig {
  provider: OAuthProvider;
  enabled: boolean;
  clientId: string;
  /** The client secret sealed with SecretBox under {@link oauthSecretContext}; never stored in clear. */
  sealedClientSecret: string;
  scopes: string[];
  /** Default redirect URL of the customer's app for this provider; must be in the project's redirectUrls. */
  redirectUrl: string | null;
  issuer: string | null;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  userInfoUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Where a provider's settings are looked for, in order, for a sign-in in `environment`: its own,
 * then, for Sandbox, Production's. A provider configured once (PUT without `environment` saves
 * Production) so serves both environments unless Sandbox has settings of its own, even disabled
 * ones (that is how an operator keeps a provider out of Sandbox). Production never borrows.
 */
export function oauthSettingsEnvironments(environment: Environment): readonly Environment[] {
  return environment === 'sandbox' ? ['sandbox', 'production'] : ['production'];
}

/** Binds a sealed client secret to its tenant and provider: a value copied to another row does not open. */
export function oauthSecretContext(scope: TenantScope, provider: OAuthProvider): string {
  return `oauth-client-secret:${scope.projectId}:${scope.environment}:${provider}`;
}

/** Longest caller `state` kept and echoed: plenty for a CSRF token or a return path. */
export const MAX_CALLER_STATE = 1024;

/** Why the caller's own `state` (echoed at the end of a sign-in) cannot be kept, or null. */
export function callerStateProblem(state: string): string | null {
  return state.length > MAX_CALLER_STATE ? `state must be at most ${MAX_CALLER_STATE} characters.` : null;
}

/** A provider account linked to a user. (scope, provider, subject) is unique. */
export interface OAuthIdentity {
  provider: OAuthProvider;
  /** The provider's stable account id (see {@link identitySubject}). */
  subject: string;
  userId: string;
  /** The address the provider vouched for when the identity was linked. */
  email: string | null;
  createdAt: Date;
}

/** Order of a user's identities: provider, then subject, by code unit (never locale), in every adapter. */
export function compareIdentities(a: OAuthIdentity, b: OAuthIdentity): number {
  const left = `${a.provider}\u0000${a.subject}`;
  const right = `${b.provider}\u0000${b.subject}`;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * The stored subject of a provider account. `sub` is unique only per issuer, and the `oidc` slot
 * of a project may be pointed at another issuer later: qualifying its subjects with the issuer
 * keeps an account of the new issuer from ever matching one of the old.
 */
export function identitySubject(provider: OAuthProvider, profile: { issuer: string; subject: string }): string {
  return provider === 'oidc' ? `${profile.issuer}#${profile.subject}` : profile.subject;
}

/**
 * The `error` values the callback sends to the customer's redirect URL (docs/decisions.md#social-sign-in): fixed words,
 * never text from the provider or the request, so nothing foreign is reflected.
 */
export const OAUTH_CALLBACK_ERRORS = ['access_denied', 'provider_error', 'email_not_verified', 'user_banned', 'plan_limit_reached'] as const;
export type OAuthCallbackError = (typeof OAUTH_CALLBACK_ERRORS)[number];

/** A sign-in the callback refuses after the state checked out: the browser goes back with `error`. */
export class OAuthCallbackFailure extends Error {
  constructor(
    readonly reason: OAuthCallbackError,
    options: { cause?: unknown } = {},
  ) {
    super(`OAuth sign-in refused: ${reason}`, { cause: options.cause });
    this.name = 'OAuthCallbackFailure';
  }
}
