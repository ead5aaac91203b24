import { AuthError } from '../../errors';
import type { Project, ProjectSettings } from '../../domain/project';
import type { AuthDeps } from '../deps';

export async function getProject(deps: Pick<AuthDeps, 'projects'>, projectId: string): Promise<Project> {
  const project = await deps.projects.findById(projectId);
  if (!project) throw new AuthError('not_found', 'Project not found.');
  return project;
}

export async function updateProject(
  deps: Pick<AuthDeps, 'clock' | 'projects'>,
  projectId: string,
  settings: ProjectSettings,
): Promise<Project> {
  if (settings.name !== undefined && !settings.name.trim()) {
    throw new AuthError('validation_error', 'name must not be empty.');
  }
  const project = await deps.projects.update(projectId, settings, deps.clock.now());
  if (!project) throw new AuthError('not_found', 'Project not found.');
  return project;
}
