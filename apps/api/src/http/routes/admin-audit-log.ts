import { Router } from 'express';
import type { AppDeps } from '../app-deps';
import { AuditLogQuery, auditQueryOf } from '../dto/audit-dtos';
import { queryOf, validateQuery } from '../middleware/validate';
import { presentAuditEntry } from '../presenters';
import { scopeParam } from './params';

/** The audit log of one project environment, newest first, filtered and paged. */
export function adminAuditLogRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router().get('/projects/:id/environments/:env/audit-log', validateQuery(AuditLogQuery), async (req, res) => {
    const page = await admin.auditLog(await scopeParam(deps.auth, req), auditQueryOf(queryOf(res, AuditLogQuery)));
    res.json({ data: { entries: page.entries.map(presentAuditEntry), nextCursor: page.nextCursor } });
  });
}
