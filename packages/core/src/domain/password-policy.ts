import type { Project } from './project';

/**
 * The form a password is compared in against the common-password list: lower case, so `Password`
 * and `PASSWORD` count as the `password` they are to anyone guessing.
 */
export function commonPasswordKey(password: string): string {
  return password.toLowerCase();
}

/**
 * The common-password rule (docs/security.md, "Passwords"): with the project's
 * `rejectCommonPasswords` on, a new password found on the list of the most common passwords is
 * refused wherever a password is set. Off by default, since the contract's only rule is a
 * minimum length of 8.
 */
export function isRefusedAsCommon(
  project: Pick<Project, 'rejectCommonPasswords'>,
  password: string,
  list: { has(key: string): boolean },
): boolean {
  return project.rejectCommonPasswords && list.has(commonPasswordKey(password));
}
