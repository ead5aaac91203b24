import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { CreateProjectDto, UpdateProjectDto, settingsOf } from '../dto/admin-dtos';
import { bodyOf, validateBody } from '../middleware/validate';
import { presentProject } from '../presenters';
import { idParam, projectNotFound, projectParam } from './params';

/** Admin API: create, read and update projects. Mounted behind the admin token. */
export function adminProjectRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router()
    .post('/projects', validateBody(CreateProjectDto), async (_req, res) => {
      const body = bodyOf(res, CreateProjectDto);
      const created = await admin.createProject({ ...settingsOf(body), name: body.name });
      res.status(201).json({ data: { project: presentProject(created.project), apiKeys: created.apiKeys, publicKeys: created.publicKeys } });
    })
    .get('/projects/:id', async (req, res) => {
      res.json({ data: { project: presentProject(await projectParam(deps.auth, req)) } });
    })
    .patch('/projects/:id', validateBody(UpdateProjectDto), async (req, res) => {
      const project = await admin.updateProject(idParam(req.params.id, projectNotFound), settingsOf(bodyOf(res, UpdateProjectDto)));
      res.json({ data: { project: presentProject(project) } });
    });
}
