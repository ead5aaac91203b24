import { AuthError } from '../errors';
import { isRefusedAsCommon } from '../domain/password-policy';
import type { Project } from '../domain/project';
import type { AuthDeps } from './deps';

/**
 * Every path that sets a password calls this before it hashes or consumes anything, so a refused
 * password costs nothing and can be retried. The message names the field, never the password.
 */
export function acceptNewPassword(
  deps: Pick<AuthDeps, 'commonPasswords'>,
  project: Pick<Project, 'rejectCommonPasswords'>,
  password: string,
  field: 'password' | 'newPassword',
): void {
  if (isRefusedAsCommon(project, password, deps.commonPasswords)) {
    throw new AuthError('validation_error', `${field} is one of the most common passwords; choose a less predictable one.`);
  }
}
