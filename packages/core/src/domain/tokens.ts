import type { Environment } from './environment';

/** Claims of every access token (docs/security.md#access-tokens). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  env: Environment;
  sid: string;
  email: string;
  role: string;
  iat: number;
  exp: number;
  jti: string;
}

/** Leeway on `exp`/`iat` checks (docs/security.md: at most 60 s). */
export const CLOCK_LEEWAY_SECONDS = 60;

export interface TokenBundle {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/**
 * Lifetimes of the mailed links and the OAuth tokens, in seconds (docs/security.md). The challenges have
 * theirs beside their rules: TWO_FACTOR_CHALLENGE_TTL_SECONDS, WEBAUTHN_CHALLENGE_TTL_SECONDS,
 * OIDC_REQUEST_TOKEN_TTL_SECONDS.
 */
export const ONE_TIME_TOKEN_TTL_SECONDS = {
  magicLink: 15 * 60,
  passwordReset: 60 * 60,
  oauthExchangeCode: 60,
  oauthState: 10 * 60,
  emailVerification: 24 * 60 * 60,
} as const;
