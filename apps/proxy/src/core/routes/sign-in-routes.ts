import { isTwoFactorChallenge, type LoginRequest, type SignupRequest, type TokenBundle } from '@svc/sdk';
import type { Exchange } from '../exchange';
import type { ProxyContext } from '../session';
import { pick } from './bodies';
import type { ProxyRoute } from './route';

type SignInAnswer = ({ user: unknown } & TokenBundle) | { twoFactorRequired: true; twoFactorToken: string; methods: string[] };

/**
 * Answers a sign-in: the second-factor challenge as is (no cookies yet), or cookies plus
 * `{ user, expiresIn }`. Tokens go only into the HttpOnly cookies, never into the body.
 */
export function answerSignIn(ctx: ProxyContext, ex: Exchange, result: SignInAnswer, status = 200, extra: object = {}): void {
  if (isTwoFactorChallenge(result)) {
    const { twoFactorRequired, twoFactorToken, methods } = result;
    return ex.ok({ twoFactorRequired, twoFactorToken, methods });
  }
  ctx.cookies.set(ex, result);
  ex.ok({ user: result.user, expiresIn: result.expiresIn, ...extra }, status);
}

/** POST login, signup, totp, passkey/login/options, passkey/login/verify. */
export const signInRoutes: ProxyRoute[] = [
  {
    method: 'POST',
    path: '/login',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['email', 'password']) as unknown as LoginRequest;
      answerSignIn(ctx, ex, await ctx.svc.login(body, ex.signInCall()));
    },
  },
  {
    method: 'POST',
    path: '/signup',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['email', 'password', 'meta']) as unknown as SignupRequest;
      answerSignIn(ctx, ex, await ctx.svc.signup(body, ex.signInCall()), 201);
    },
  },
  {
    method: 'POST',
    path: '/totp',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['twoFactorToken', 'code']) as { twoFactorToken: string; code: string };
      answerSignIn(ctx, ex, await ctx.svc.totpVerify(body, ex.signInCall()));
    },
  },
  {
    method: 'POST',
    path: '/passkey/login/options',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['email']) as { email: string };
      ex.ok(await ctx.svc.passkeyLoginOptions(body, ex.call()));
    },
  },
  {
    method: 'POST',
    path: '/passkey/login/verify',
    async handle(ctx, ex) {
      const body = pick(ex.body, ['challengeId', 'email', 'response']) as { challengeId: string; email: string; response: unknown };
      answerSignIn(ctx, ex, await ctx.svc.passkeyLoginVerify(body, ex.signInCall()));
    },
  },
];
