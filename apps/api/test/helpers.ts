import { Writable } from 'node:stream';
import request from 'supertest';
import type { Express } from 'express';
import { createAuthService, InMemoryRateLimiter, type AuthDeps, type RateLimiter } from '@svc/core';
import { createInMemoryDeps } from '@svc/core/testing';
import { AfterAnswer } from '../src/http/after-answer';
import { createApp } from '../src/http/app';
import type { AppConfig } from '../src/http/app-deps';
import { createLogger } from '../src/composition/logger';
import { countEvents, createMetrics } from '../src/http/metrics';
import { withRequestContext } from '../src/http/request-context';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface TestProject {
  id: string;
  live: string;
  sandbox: string;
}

/** An app over in-memory fakes with a FixedClock; log lines are kept in `logs`. */
export function buildTestApp(options: { config?: Partial<AppConfig>; rateLimiter?: RateLimiter; ready?: () => Promise<void>; deps?: Partial<AuthDeps> } = {}) {
  const deps = createInMemoryDeps(options.deps);
  const metrics = createMetrics();
  // As the container wires them: events carry their request's context and are counted.
  if (deps.events) deps.events = countEvents(withRequestContext(deps.events), metrics);
  const auth = createAuthService(deps);
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'info', destination });
  // Magic-link and reset requests finish their work after answering: `await afterAnswer.idle()`.
  const afterAnswer = new AfterAnswer({ logger, metrics });
  const app = createApp({
    auth,
    rateLimiter: options.rateLimiter ?? new InMemoryRateLimiter(deps.clock),
    logger,
    metrics,
    afterAnswer,
    config: { adminToken: ADMIN_TOKEN, trustProxy: false, rateLimits: structuredClone(DEFAULT_RATE_LIMITS), ...options.config },
    ready: options.ready ?? (async () => {}),
  });
  return { app, deps, auth, logs, metrics, afterAnswer, clock: deps.clock, http: request(app) };
}

/** Creates a project through the admin API and returns its id and both keys. */
export async function createProject(app: Express, body: Record<string, unknown> = { name: 'Test project' }): Promise<TestProject> {
  const res = await request(app).post('/admin/projects').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send(body).expect(201);
  return { id: res.body.data.project.id, live: res.body.data.apiKeys.production, sandbox: res.body.data.apiKeys.sandbox };
}

export function admin(app: Express) {
  const agent = request(app);
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  return {
    get: (path: string) => agent.get(path).set(auth),
    post: (path: string, body?: object) => (body ? agent.post(path).set(auth).send(body) : agent.post(path).set(auth)),
    patch: (path: string, body: object) => agent.patch(path).set(auth).send(body),
    delete: (path: string) => agent.delete(path).set(auth),
  };
}

export async function signUp(app: Express, key: string, email = 'ada@example.com', password = 'correct horse battery') {
  const res = await request(app).post('/api/auth/signup').set('X-API-Key', key).send({ email, password }).expect(201);
  return res.body.data as { user: { id: string; email: string }; accessToken: string; refreshToken: string; expiresIn: number };
}

export const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
