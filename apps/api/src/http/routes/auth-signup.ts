import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { SignupDto } from '../dto/auth-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { signInClient } from '../middleware/client-address';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentTokens, presentUserSignup } from '../presenters';
import { keyed, limited } from './guards';

/** POST /api/auth/signup -> 201 { user: UserSignup, tokens }. */
export function signupRoutes(deps: AppDeps): Router {
  return Router().post('/api/auth/signup', ...keyed(deps), validateBody(SignupDto), limited(deps, 'signup'), async (req, res) => {
    const { user, ...tokens } = await deps.auth.signUp(apiKeyOf(res), bodyOf(res, SignupDto), { client: signInClient(req, res) });
    res.status(201).json({ data: { user: presentUserSignup(user), ...presentTokens(tokens) } });
  });
}
