import { Router, type Request } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { CreateUserDto, ListUsersQuery, UpdateUserDto } from '../dto/admin-dtos';
import { bodyOf, queryOf, validateBody, validateQuery } from '../middleware/validate';
import { presentUserDetail } from '../admin-presenters';
import { presentAdminUser } from '../presenters';
import { idParam, projectParam, scopeParam, environmentParam } from './params';

const userNotFound = () => new AuthError('user_not_found');
const sessionNotFound = () => new AuthError('not_found', 'Session not found.');
const userIdOf = (req: Request) => idParam(req.params.userId, userNotFound);

/**
 * The users of one environment (the OpenAPI document): search and page, inspect, create (imports),
 * change role, meta and the verified flag, ban, unban, delete, and end their sessions.
 */
export function adminUserRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  const base = '/projects/:id/environments/:env/users';
  return Router()
    .get(base, validateQuery(ListUsersQuery, { refuseUnknown: true }), async (req, res) => {
      const page = await admin.listUsers(await scopeParam(deps.auth, req), { ...queryOf(res, ListUsersQuery) });
      res.json({ data: { users: page.users.map(presentAdminUser), nextCursor: page.nextCursor, total: page.total } });
    })
    .post(base, validateBody(CreateUserDto), async (req, res) => {
      const environment = environmentParam(req.params.env);
      const project = await projectParam(deps.auth, req);
      const user = await admin.createUser({ projectId: project.id, environment }, project, bodyOf(res, CreateUserDto));
      res.status(201).json({ data: { user: presentAdminUser(user) } });
    })
    .get(`${base}/:userId`, async (req, res) => {
      const detail = await admin.getUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { user: presentUserDetail(detail) } });
    })
    .patch(`${base}/:userId`, validateBody(UpdateUserDto), async (req, res) => {
      const user = await admin.updateUser(await scopeParam(deps.auth, req), userIdOf(req), bodyOf(res, UpdateUserDto));
      res.json({ data: { user: presentAdminUser(user) } });
    })
    .post(`${base}/:userId/ban`, async (req, res) => {
      await admin.banUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    })
    .post(`${base}/:userId/unban`, async (req, res) => {
      await admin.unbanUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    })
    .post(`${base}/:userId/sessions/revoke-all`, async (req, res) => {
      res.json({ data: await admin.revokeAllUserSessions(await scopeParam(deps.auth, req), userIdOf(req)) });
    })
    .delete(`${base}/:userId/sessions/:sessionId`, async (req, res) => {
      const scope = await scopeParam(deps.auth, req);
      await admin.revokeUserSession(scope, userIdOf(req), idParam(req.params.sessionId, sessionNotFound));
      res.json({ data: { success: true } });
    })
    .delete(`${base}/:userId`, async (req, res) => {
      await admin.deleteUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    });
}
