import type { Project } from './project';
import { characterCount } from './text';

/** The contract's minimum length of a new password. */
export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase; bounds the cost of hashing (every byte counts). */
export const MAX_PASSWORD_LENGTH = 1024;

/** Why a new password (in `field`) is too short or too long, or null. The message never quotes it. */
export function passwordLengthProblem(password: string, field: string): string | null {
  const length = characterCount(password);
  if (length < MIN_PASSWORD_LENGTH) return `${field} must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (length > MAX_PASSWORD_LENGTH) return `${field} must be at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

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
export function isRefusedAsCommon(project: Pick<Project, 'rejectCommonPasswords'>, password: string, list: { has(key: string): boolean }): boolean {
  return project.rejectCommonPasswords && list.has(commonPasswordKey(password));
}
