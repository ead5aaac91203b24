import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { CreateProjectDto, ListProjectsQuery, UpdateProjectDto, settingsOf } from '../dto/admin-dtos';
import { bodyOf, queryOf, validateBody, validateQuery } from '../middleware/validate';
import { presentProject } from '../presenters';
import { idParam, projectNotFound, projectParam } from './params';

/** Admin API: list, create, read, update and delete projects. Mounted behind the admin token. */
export function adminProjectRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router()
    .get('/projects', validateQuery(ListProjectsQuery, { refuseUnknown: true }), async (_req, res) => {
      const page = await admin.listProjects({ ...queryOf(res, ListProjectsQuery) });
      res.json({ data: { projects: page.projects.map(presentProject), nextCursor: page.nextCursor } });
    })
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
    })
    .delete('/projects/:id', async (req, res) => {
      await admin.deleteProject(idParam(req.params.id, projectNotFound));
      res.json({ data: { success: true } });
    });
}
