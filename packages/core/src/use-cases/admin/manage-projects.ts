import { AuthError } from '../../errors';
import { pageSize } from '../../domain/admin-queries';
import type { ProjectPage } from '../../ports/project-repository';
import type { AuthDeps } from '../deps';
import { checkedSearch } from './manage-users';

/** A page of projects by id; `q` keeps those whose name contains it, any case. */
export async function listProjects(deps: Pick<AuthDeps, 'projects'>, query: { q?: string; limit?: number; cursor?: string }): Promise<ProjectPage> {
  const search = query.q === undefined ? undefined : checkedSearch(query.q, 'q');
  return deps.projects.list({ search, limit: pageSize(query.limit), cursor: query.cursor });
}

/**
 * Deletes the project with everything stored under it: both environments' users, sessions, keys,
 * signing keys, mails, providers and clients. Not undoable; keys of the project stop working.
 */
export async function deleteProject(deps: Pick<AuthDeps, 'projects'>, projectId: string): Promise<void> {
  if (!(await deps.projects.delete(projectId))) throw new AuthError('not_found', 'Project not found.');
}
