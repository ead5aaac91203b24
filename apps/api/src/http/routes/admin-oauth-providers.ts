import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { OAuthProviderDto, OAuthProviderEnvironmentQuery } from '../dto/oauth-dtos';
import { bodyOf, queryOf, validateBody, validateQuery } from '../middleware/validate';
import { presentOAuthProvider } from '../oauth-presenters';
import { idParam, projectNotFound } from './params';

/**
 * Admin API: identity-provider settings per project and environment. A PUT names one environment
 * (`environment` in the body, default production); each environment is configured on its own.
 */
export function adminOAuthProviderRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  const base = '/projects/:id/oauth-providers';
  return Router()
    .put(`${base}/:provider`, validateBody(OAuthProviderDto), async (req, res) => {
      const { environment = 'production', ...input } = bodyOf(res, OAuthProviderDto);
      const projectId = idParam(req.params.id, projectNotFound);
      const config = await admin.configureOAuthProvider(projectId, String(req.params.provider), { ...input, environment });
      res.json({ data: { provider: presentOAuthProvider(config, environment) } });
    })
    .get(base, validateQuery(OAuthProviderEnvironmentQuery, { refuseUnknown: true }), async (req, res) => {
      const { environment = 'production' } = queryOf(res, OAuthProviderEnvironmentQuery);
      const configs = await admin.listOAuthProviders(idParam(req.params.id, projectNotFound), environment);
      res.json({ data: { providers: configs.map((config) => presentOAuthProvider(config, environment)) } });
    })
    .delete(`${base}/:provider`, validateQuery(OAuthProviderEnvironmentQuery), async (req, res) => {
      const { environment = 'production' } = queryOf(res, OAuthProviderEnvironmentQuery);
      await admin.removeOAuthProvider(idParam(req.params.id, projectNotFound), String(req.params.provider), environment);
      res.json({ data: { success: true } });
    });
}
