import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { CreateApiKeyDto, NoQuery } from '../dto/admin-dtos';
import { bodyOf, validateBody, validateQuery } from '../middleware/validate';
import { presentApiKey } from '../presenters';
import { idParam, projectNotFound, projectParam } from './params';

const keyNotFound = () => new AuthError('not_found', 'API key not found.');

/** Admin API: issue, list and revoke API keys. The full key is shown once, at creation. */
export function adminApiKeyRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router()
    .post('/projects/:id/api-keys', validateBody(CreateApiKeyDto), async (req, res) => {
      const projectId = idParam(req.params.id, projectNotFound);
      res.status(201).json({ data: await admin.createApiKey(projectId, bodyOf(res, CreateApiKeyDto).environment) });
    })
    .get('/projects/:id/api-keys', validateQuery(NoQuery, { refuseUnknown: true }), async (req, res) => {
      const project = await projectParam(deps.auth, req);
      res.json({ data: { apiKeys: (await admin.listApiKeys(project.id)).map(presentApiKey) } });
    })
    .delete('/projects/:id/api-keys/:keyId', async (req, res) => {
      const projectId = idParam(req.params.id, projectNotFound);
      await admin.revokeApiKey(projectId, idParam(req.params.keyId, keyNotFound));
      res.json({ data: { success: true } });
    });
}
