import { Router, type Response } from 'express';
import { isTwoFactorChallenge, type LoginRequest, type SignupRequest, type TokenBundle } from '@svc/sdk';
import type { ProxyContext } from '../proxy-context';
import { clientIpOf } from '../request-guards';
import { pick } from './bodies';

type SignInAnswer = ({ user: unknown } & TokenBundle) | { twoFactorRequired: true; twoFactorToken: string; methods: string[] };

/**
 * Answers a sign-in: the second-factor challenge as is (no cookies yet), or cookies plus
 * `{ user, expiresIn }`. Tokens go only into the HttpOnly cookies, never into the body.
 */
export function answerSignIn(ctx: ProxyContext, res: Response, result: SignInAnswer, status = 200, extra: object = {}): void {
  if (isTwoFactorChallenge(result)) {
    const { twoFactorRequired, twoFactorToken, methods } = result;
    res.json({ data: { twoFactorRequired, twoFactorToken, methods } });
    return;
  }
  ctx.cookies.set(res, result);
  res.status(status).json({ data: { user: result.user, expiresIn: result.expiresIn, ...extra } });
}

/** POST login, signup, totp, passkey/login/options, passkey/login/verify. */
export function signInRoutes(ctx: ProxyContext): Router {
  const { svc } = ctx;
  return Router()
    .post('/login', async (req, res) => {
      const body = pick(req.body, ['email', 'password']) as unknown as LoginRequest;
      answerSignIn(ctx, res, await svc.login(body, { clientIp: clientIpOf(req) }));
    })
    .post('/signup', async (req, res) => {
      const body = pick(req.body, ['email', 'password', 'meta']) as unknown as SignupRequest;
      answerSignIn(ctx, res, await svc.signup(body, { clientIp: clientIpOf(req) }), 201);
    })
    .post('/totp', async (req, res) => {
      const body = pick(req.body, ['twoFactorToken', 'code']) as { twoFactorToken: string; code: string };
      answerSignIn(ctx, res, await svc.totpVerify(body, { clientIp: clientIpOf(req) }));
    })
    .post('/passkey/login/options', async (req, res) => {
      const body = pick(req.body, ['email']) as { email: string };
      res.json({ data: await svc.passkeyLoginOptions(body, { clientIp: clientIpOf(req) }) });
    })
    .post('/passkey/login/verify', async (req, res) => {
      const body = pick(req.body, ['challengeId', 'email', 'response']) as { challengeId: string; email: string; response: unknown };
      answerSignIn(ctx, res, await svc.passkeyLoginVerify(body, { clientIp: clientIpOf(req) }));
    });
}
