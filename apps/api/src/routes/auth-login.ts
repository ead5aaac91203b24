import { Router } from 'express';
import type { AppDeps } from '../app';
import { LoginDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { LOGIN_LIMITS } from '../middleware/rate-limit';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentUserLogin } from '../presenters';
import { presentSignIn } from '../second-factor-presenters';
import { keyed, limited } from './guards';

/**
 * Contract endpoint 2: POST /api/auth/login -> 200 { user: UserLogin, tokens }, or for a user
 * with TOTP on 200 { twoFactorRequired: true, twoFactorToken, methods } and no tokens (DESIGN §5).
 */
export function loginRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/login', ...keyed(deps), validateBody(LoginDto), limited(deps, ...LOGIN_LIMITS), async (_req, res) => {
    res.json({ data: presentSignIn(await deps.auth.logIn(apiKeyOf(res), bodyOf(res, LoginDto)), presentUserLogin) });
  });
}
