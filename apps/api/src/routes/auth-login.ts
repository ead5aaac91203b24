import { Router } from 'express';
import type { AppDeps } from '../app';
import { LoginDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentTokens, presentUserLogin } from '../presenters';
import { keyed, limited } from './guards';

/** Contract endpoint 2: POST /api/auth/login -> 200 { user: UserLogin, tokens }. */
export function loginRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/login', ...keyed(deps), validateBody(LoginDto), limited(deps, 'login'), async (_req, res) => {
    const { user, ...tokens } = await deps.auth.logIn(apiKeyOf(res), bodyOf(res, LoginDto));
    res.json({ data: { user: presentUserLogin(user), ...presentTokens(tokens) } });
  });
}
