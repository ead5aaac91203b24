import { Router, type RequestHandler } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { NoQuery } from '../dto/admin-dtos';
import { SandboxOutboxQuery } from '../dto/email-dtos';
import { presentDeadMail, presentSandboxMail } from '../email-presenters';
import { queryOf, validateQuery } from '../middleware/validate';
import { idParam, projectNotFound } from './params';

/**
 * The outbox in the admin API: the sandbox mailbox (latest mails to an address, with their links,
 * so end-to-end tests need no mail server) and the dead letters of a project. Production mail is
 * never readable here: its links are live credentials.
 */
export function adminOutboxRoutes(deps: AppDeps): Router {
  const { admin } = deps.auth;
  return Router()
    .get('/projects/:id/environments/:env/outbox', sandboxOnly, validateQuery(SandboxOutboxQuery, { refuseUnknown: true }), async (req, res) => {
      // Mail requests answer before they queue their mail; a test that asks for the mail right
      // after its request must find it, so this process's queued work is waited for first.
      await deps.afterAnswer?.idle();
      const views = await admin.sandboxOutbox(idParam(req.params.id, projectNotFound), queryOf(res, SandboxOutboxQuery));
      res.json({ data: { mails: views.map(presentSandboxMail) } });
    })
    .get('/projects/:id/outbox/dead', validateQuery(NoQuery, { refuseUnknown: true }), async (req, res) => {
      const mails = await admin.deadMails(idParam(req.params.id, projectNotFound));
      res.json({ data: { mails: mails.map(presentDeadMail) } });
    });
}

const sandboxOnly: RequestHandler = (req, _res, next) => {
  if (req.params.env !== 'sandbox') throw new AuthError('not_found', 'Only the sandbox outbox can be read.');
  next();
};
