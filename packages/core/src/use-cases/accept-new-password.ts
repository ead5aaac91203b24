import { AuthError } from '../errors';
import { isRefusedAsCommon, passwordLengthProblem } from '../domain/password-policy';
import type { Project } from '../domain/project';
import type { OptionalDeps } from './deps';

export const NO_COMMON_PASSWORD_LIST = 'rejectCommonPasswords is on, but this service was built without a common-password list.';

/**
 * Every path that sets a password calls this before it hashes or consumes anything, so a refused
 * password costs nothing and can be retried. The message names the field, never the password.
 */
export function acceptNewPassword(deps: OptionalDeps<'commonPasswords'>, project: Pick<Project, 'rejectCommonPasswords'>, password: string, field: 'password' | 'newPassword'): void {
  const lengthProblem = passwordLengthProblem(password, field);
  if (lengthProblem) throw new AuthError('validation_error', lengthProblem);
  if (!project.rejectCommonPasswords) return;
  // A project that asks for the check on a service built without the list fails closed: the
  // operator sees why in the log (createProject and updateProject refuse to turn it on there).
  if (!deps.commonPasswords) throw new AuthError('internal_error', undefined, { cause: new Error(NO_COMMON_PASSWORD_LIST) });
  if (isRefusedAsCommon(project, password, deps.commonPasswords)) {
    throw new AuthError('validation_error', `${field} is one of the most common passwords; choose a less predictable one.`);
  }
}
