import { AuthError } from '../../errors';
import type { Project, ProjectSettings } from '../../domain/project';
import { webAuthnSettingsProblem, type WebAuthnSettings } from '../../domain/relying-party';
import type { AuthDeps } from '../deps';
import { assertEmailTemplates } from '../email/email-template-settings';

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
  assertWebAuthnSettings(settings.webauthn);
  assertEmailTemplates(settings.emailTemplates);
  const project = await deps.projects.update(projectId, settings, deps.clock.now());
  if (!project) throw new AuthError('not_found', 'Project not found.');
  return project;
}

/** A relying party that could never verify a ceremony is refused when it is set, not at sign-in. */
export function assertWebAuthnSettings(settings: WebAuthnSettings | null | undefined): void {
  const problem = settings ? webAuthnSettingsProblem(settings) : null;
  if (problem) throw new AuthError('validation_error', problem);
}
