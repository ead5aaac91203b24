import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { LoginDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { signInClient } from '../middleware/client-address';
import { countLimits } from '../middleware/rate-limit';
import { LOGIN_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentUserLogin } from '../presenters';
import { presentSignIn } from '../second-factor-presenters';
import { keyed, limited, limitOptions } from './guards';

/**
 * POST /api/auth/login -> 200 { user: UserLogin, tokens }, or for a user
 * with TOTP on 200 { twoFactorRequired: true, twoFactorToken, methods } and no tokens (the OpenAPI document).
 * The per-address limits are counted first; the per-account one (`loginAccount`) only for a
 * client the account does not know, once the use case has looked (docs/security.md).
 */
export function loginRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/login', ...keyed(deps), validateBody(LoginDto), limited(deps, ...LOGIN_LIMITS), async (req, res) => {
    const unknownClient = () => countLimits(['loginAccount'], limitOptions(deps), req, res);
    const result = await deps.auth.logIn(apiKeyOf(res), bodyOf(res, LoginDto), { client: signInClient(req, res), unknownClient });
    res.json({ data: presentSignIn(result, presentUserLogin) });
  });
}
