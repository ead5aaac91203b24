import { Router } from 'express';
import { AuthError } from '@svc/core';
import type { AppDeps } from '../app-deps';
import { errorBody, UNAVAILABLE_RETRY_AFTER_SECONDS } from '../http-errors';

/** The probe's own bound when the configuration gives none (SVC_READY_TIMEOUT_MS). */
const DEFAULT_READY_TIMEOUT_MS = 2000;

/** What each reason a dependency gives (`details.reason` of `service_unavailable`) means, for the 503's message. */
const REASONS: Record<string, string> = {
  timeout: 'did not answer in time',
  lock_timeout: 'did not grant a lock in time (someone holds one on the tables it writes)',
  read_only: 'is read-only',
  disk_full: 'is out of disk space',
  overloaded: 'has no resources to spare (connections, memory)',
  unreachable: 'is not reachable',
};

/**
 * GET /healthz (the process is up; always 200) and GET /readyz: whether this instance can do its
 * work now, decided within a bounded time. `deps.ready()` is the container's probe (a write
 * probe of the database, rolled back); while stopping the answer is 503 too, so a balancer
 * drains the instance. A 503 names the failing dependency and why. No key needed.
 */
export function healthRoutes(deps: AppDeps): Router {
  const timeoutMs = deps.config.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  return Router()
    .get('/healthz', (_req, res) => {
      res.set('Cache-Control', 'no-store').json({ data: { status: 'ok' } });
    })
    .get('/readyz', async (_req, res) => {
      res.set('Cache-Control', 'no-store');
      const notReady = (why: string) =>
        res
          .status(503)
          .set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
          .json(errorBody('service_unavailable', `The service is not ready: ${why}.`));
      if (deps.stopping?.()) return void notReady('it is shutting down');
      try {
        await withTimeout(deps.ready(), timeoutMs);
        res.json({ data: { status: 'ready' } });
      } catch (error) {
        deps.logger.warn({ err: error, requestId: res.locals.requestId }, 'readiness check failed');
        notReady(explain(error, timeoutMs));
      }
    });
}

function explain(error: unknown, timeoutMs: number): string {
  if (error instanceof ReadyTimeout) return `the database did not answer within ${timeoutMs} ms`;
  const details = error instanceof AuthError && error.code === 'service_unavailable' ? error.details : undefined;
  const dependency = typeof details?.dependency === 'string' ? details.dependency : 'database';
  const reason = typeof details?.reason === 'string' ? REASONS[details.reason] : undefined;
  return `the ${dependency} ${reason ?? 'check failed'}`;
}

class ReadyTimeout extends Error {}

function withTimeout(promise: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ReadyTimeout(`no answer within ${ms} ms`)), ms);
  });
  // A probe that loses the race must not become an unhandled rejection later.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
