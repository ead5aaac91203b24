import { AuthError } from '../../errors';
import type { Project, ProjectSettings } from '../../domain/project';
import { projectSettingsProblem } from '../../domain/project-settings';
import type { AuthDeps, OptionalDeps } from '../deps';
import { ENVIRONMENTS } from '../../domain/environment';
import { settingsChange } from '../../domain/security-event';
import { emitEvent } from '../events/record-event';
import { atomically } from '../atomically';

export async function getProject(deps: Pick<AuthDeps, 'projects'>, projectId: string): Promise<Project> {
  const project = await deps.projects.findById(projectId);
  if (!project) throw new AuthError('not_found', 'Project not found.');
  return project;
}

export async function updateProject(
  deps: Pick<AuthDeps, 'clock' | 'projects'> & OptionalDeps<'commonPasswords' | 'events' | 'outbox' | 'unitOfWork'>,
  projectId: string,
  settings: ProjectSettings,
): Promise<Project> {
  assertProjectSettings(deps, settings, { creating: false });
  return atomically(deps, async () => {
    const before = await deps.projects.findById(projectId);
    const project = before && (await deps.projects.update(projectId, settings, deps.clock.now()));
    if (!before || !project) throw new AuthError('not_found', 'Project not found.');
    // A project's settings hold both environments: the change is in each environment's log, kept
    // for the retention the project has after it (a change of the retention included).
    const change = settingsChange(before, project, Object.keys(settings));
    const event = { type: 'project.updated', data: change, retentionDays: project.auditRetentionDays } as const;
    for (const environment of ENVIRONMENTS) await emitEvent(deps, { projectId, environment }, event);
    return project;
  });
}

/**
 * Settings that break a rule (projectSettingsProblem) are refused before anything is written, and
 * so is the common-password check on a service built without the list to check against.
 */
export function assertProjectSettings(deps: OptionalDeps<'commonPasswords' | 'outbox'>, settings: ProjectSettings, options: { creating: boolean }): void {
  const problem = projectSettingsProblem(settings, options);
  if (problem) throw new AuthError('validation_error', problem);
  if (settings.rejectCommonPasswords === true && !deps.commonPasswords) {
    throw new AuthError('validation_error', 'rejectCommonPasswords cannot be turned on: this service has no common-password list.');
  }
  if (settings.emailVerification !== undefined && settings.emailVerification !== 'off' && !deps.outbox) {
    throw new AuthError('validation_error', 'emailVerification cannot be turned on: this service sends no mail.');
  }
}
