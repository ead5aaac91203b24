import { isEnvironment, isStorableText, isUuid, type TenantScope } from '@svc/core';

// Every id and scope is checked before it reaches SQL (docs/security.md). Ids are stored as `uuid` on
// PostgreSQL, where comparing with 'not-a-uuid' would raise a cast error instead of "not found";
// only core's canonical lower-case form (isUuid) is accepted so both databases find the same rows.
export { isUuid };

/**
 * True for a non-empty string (hashes, e-mails, kids) that a database can hold: with a NUL or an
 * unpaired surrogate PostgreSQL fails the statement (22021) instead of finding nothing, so such a
 * lookup answers "not found" here and a write is refused before it reaches SQL.
 */
export function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && isStorableText(value);
}

/** True when the scope names a well-formed project id and a known environment. */
export function isScope(scope: TenantScope | undefined | null): scope is TenantScope {
  return !!scope && isUuid(scope.projectId) && isEnvironment(scope.environment);
}

/** Writes refuse malformed input loudly: storing it would make the row unreachable later. */
export function assertScope(scope: TenantScope): void {
  if (!isScope(scope)) throw new TypeError('invalid tenant scope');
}

/** Throws unless `value` is a canonical UUID (used on writes). */
export function assertUuid(value: unknown, what: string): asserts value is string {
  if (!isUuid(value)) throw new TypeError(`${what} must be a lower-case UUID`);
}

/** Throws unless `value` is a non-empty string a database can hold (used on writes). */
export function assertText(value: unknown, what: string): asserts value is string {
  if (!isText(value)) throw new TypeError(`${what} must be a non-empty string`);
}

/** Throws unless `value` is a valid Date: an Invalid Date would be stored as garbage. */
export function assertDate(value: unknown, what: string): asserts value is Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError(`${what} must be a valid Date`);
}
