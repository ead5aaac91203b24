import { Router, type Request } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { ListUsersQuery } from '../dto/admin-dtos';
import { queryOf, validateQuery } from '../middleware/validate';
import { presentAdminUser } from '../presenters';
import { idParam, scopeParam } from './params';

const userNotFound = () => new AuthError('user_not_found');
const userIdOf = (req: Request) => idParam(req.params.userId, userNotFound);

/** Admin API: list, ban, unban and delete the users of one environment. */
export function adminUserRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  const base = '/projects/:id/environments/:env/users';
  return Router()
    .get(base, validateQuery(ListUsersQuery), async (req, res) => {
      const page = await admin.listUsers(await scopeParam(deps.auth, req), { ...queryOf(res, ListUsersQuery) });
      res.json({ data: { users: page.users.map(presentAdminUser), nextCursor: page.nextCursor } });
    })
    .post(`${base}/:userId/ban`, async (req, res) => {
      await admin.banUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    })
    .post(`${base}/:userId/unban`, async (req, res) => {
      await admin.unbanUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    })
    .delete(`${base}/:userId`, async (req, res) => {
      await admin.deleteUser(await scopeParam(deps.auth, req), userIdOf(req));
      res.json({ data: { success: true } });
    });
}
