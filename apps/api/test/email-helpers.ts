import type { Express } from 'express';
import request from 'supertest';
import { deliverOutbox, type AuthDeps, type DeliveryPolicy } from '@svc/core';
import { RecordingMailer } from '@svc/core/testing';
import { buildTestApp, createProject, type TestProject } from './helpers';

export const MAGIC_URL = 'https://app.example.test/auth/magic?from=mail';
export const RESET_URL = 'https://app.example.test/auth/reset';

/** The in-memory app plus a RecordingMailer; `deliver()` runs one worker round with the app's clock. */
export function buildEmailApp(options: Parameters<typeof buildTestApp>[0] = {}) {
  const built = buildTestApp(options);
  const mailer = new RecordingMailer();
  const deliver = (policy: Partial<DeliveryPolicy> = {}) => deliverOutbox({ ...built.deps, mailer }, policy);
  /** The link of the latest mail sent to `to`. */
  const linkTo = (to: string): URL => {
    const mail = mailer.sentTo(to).at(-1);
    if (!mail) throw new Error(`no mail sent to ${to}`);
    return new URL(/https?:\/\/\S+/.exec(mail.text)![0]);
  };
  return { ...built, mailer, deliver, linkTo };
}

/** A project whose mails link to MAGIC_URL and RESET_URL. */
export function createMailProject(app: Express, body: Record<string, unknown> = {}): Promise<TestProject> {
  return createProject(app, { name: 'Mail project', magicLinkUrl: MAGIC_URL, passwordResetUrl: RESET_URL, ...body });
}

export const requestMagicLink = (app: Express, key: string, body: object) => request(app).post('/api/auth/magic-link').set('X-API-Key', key).send(body);

export const requestReset = (app: Express, key: string, email: string) => request(app).post('/api/auth/password/reset').set('X-API-Key', key).send({ email });

/** GET verify with the `token` and `project` of a link (or given ones). */
export const verify = (app: Express, query: { token?: string; project?: string } | URL) => {
  const q = query instanceof URL ? Object.fromEntries(query.searchParams) : query;
  return request(app).get('/api/auth/magic-link/verify').query(q);
};

export const tokenOf = (link: URL) => link.searchParams.get('token')!;

/** Users of one environment, through the admin port (no HTTP needed for a count). */
export const countUsers = (deps: AuthDeps, projectId: string, environment: 'production' | 'sandbox' = 'production') => deps.users.count({ projectId, environment });
