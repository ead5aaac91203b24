import { Router } from 'express';
import type { AppDeps } from '../app';
import { errorBody } from '../http-errors';

/** A readiness probe must answer within the orchestrator's timeout, not hang with the database. */
const READY_TIMEOUT_MS = 2000;

/**
 * DESIGN §11: GET /healthz (the process is up; always 200) and GET /readyz (the database answers;
 * 503 otherwise). No key needed. The 503 keeps the envelope; the catalogue has no "not ready"
 * code, so it is internal_error with a message that says what is wrong.
 */
export function healthRoutes(deps: AppDeps): Router {
  return Router()
    .get('/healthz', (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ data: { status: 'ok' } });
    })
    .get('/readyz', async (_req, res) => {
      res.set('Cache-Control', 'no-store');
      try {
        await withTimeout(deps.ready(), READY_TIMEOUT_MS);
        res.json({ data: { status: 'ready' } });
      } catch (error) {
        deps.logger.warn({ err: error, requestId: res.locals.requestId }, 'readiness check failed');
        res.status(503).json(errorBody('internal_error', 'The service is not ready: its database is not reachable.'));
      }
    });
}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
