import type { Request } from 'express';
import { AuthError, isEnvironment, isUuid, type AuthService, type Environment, type Project, type TenantScope } from '@svc/core';

/**
 * Ids in paths are canonical UUIDs (core's isUuid). Anything else is answered 404 here,
 * so a malformed value never reaches a query (docs/security.md; PostgreSQL would also reject it with an
 * error instead of "no row").
 */
export function idParam(value: unknown, notFound: () => AuthError): string {
  if (!isUuid(value)) throw notFound();
  return value;
}

export const projectNotFound = () => new AuthError('not_found', 'Project not found.');

/** The project named by `:id`, or 404 not_found. */
export async function projectParam(auth: AuthService, req: Request): Promise<Project> {
  return auth.admin.getProject(idParam(req.params.id, projectNotFound));
}

/** An environment named in a path, or 404 not_found. */
export function environmentParam(value: unknown): Environment {
  if (!isEnvironment(value)) throw new AuthError('not_found', 'Unknown environment (use production or sandbox).');
  return value;
}

/** The tenant named by `:id` and `:env` of an existing project, or 404 not_found. */
export async function scopeParam(auth: AuthService, req: Request): Promise<TenantScope> {
  const environment = environmentParam(req.params.env);
  const project = await projectParam(auth, req);
  return { projectId: project.id, environment };
}
