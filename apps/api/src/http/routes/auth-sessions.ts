import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { apiKeyOf } from '../middleware/api-key';
import { bearerToken } from '../middleware/bearer';
import { presentDeviceSession } from '../presenters';
import { keyed, limited } from './guards';
import { idParam } from './params';

const sessionNotFound = () => new AuthError('not_found', 'Session not found.');

/**
 * The signed-in user's devices (API key + bearer): list the sessions, end one, end all others,
 * end all. Every access token of an ended session stops working at once.
 */
export function sessionRoutes(deps: AppDeps): Router {
  const { sessions } = deps.auth;
  return Router()
    .get('/api/auth/sessions', ...keyed(deps), limited(deps, 'sessionList'), async (req, res) => {
      const list = await sessions.list(apiKeyOf(res), bearerToken(req));
      res.json({ data: { sessions: list.map(presentDeviceSession) } });
    })
    .delete('/api/auth/sessions/:id', ...keyed(deps), limited(deps, 'sessionRevoke'), async (req, res) => {
      await sessions.revoke(apiKeyOf(res), bearerToken(req), idParam(req.params.id, sessionNotFound));
      res.json({ data: { success: true } });
    })
    .post('/api/auth/sessions/revoke-others', ...keyed(deps), limited(deps, 'sessionRevoke'), async (req, res) => {
      res.json({ data: { revoked: await sessions.revokeOthers(apiKeyOf(res), bearerToken(req)) } });
    })
    .post('/api/auth/logout-all', ...keyed(deps), limited(deps, 'sessionRevoke'), async (req, res) => {
      res.json({ data: { revoked: await sessions.revokeAll(apiKeyOf(res), bearerToken(req)) } });
    });
}
