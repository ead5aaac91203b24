import type { Environment } from './environment';

/** Claims of every access token (DESIGN §3). */
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

/** Leeway on `exp`/`iat` checks (DESIGN §4a: at most 60 s). */
export const CLOCK_LEEWAY_SECONDS = 60;

export interface TokenBundle {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

/** Lifetimes of the one-time tokens, in seconds (DESIGN §3). */
export const ONE_TIME_TOKEN_TTL_SECONDS = {
  magicLink: 15 * 60,
  passwordReset: 60 * 60,
  oauthExchangeCode: 60,
  oauthState: 10 * 60,
  twoFactorChallenge: 5 * 60,
  webauthnChallenge: 5 * 60,
} as const;
